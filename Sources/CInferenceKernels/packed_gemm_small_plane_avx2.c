// pg_packed_gemm for a convolution over a small plane (33 to 55 columns: a 7×7 plane's 49, the last stage of
// MobileNet, ResNet and EfficientNet) on AVX2. In tiles of 32 the 49 columns are 32 and 17, and the 17 take 24 columns
// of multiply-adds: an eighth of the work is spent on columns that do not exist. Here the vectors run down the
// panel's 8 rows instead, as the weights are packed: each step of k loads one vector of weights and multiplies it by
// 8 to 11 columns' values, each broadcast, into one sum per column. The plane is first copied as blocks of those
// columns, each block's k rows contiguous, so that a panel reads it as streams from L2, once.
// Warm in cache, MobileNetV2's 7×7 layers at batch 1 (320×960×49, 1280×320×49): 46-57 GFLOPS in blocks of 2 rows × 6
// vectors of columns, which read the plane four times per panel, 78-79 here; the machine's peak 102.
// The sums are columns; they are transposed in registers, 8 × 8, as they are stored as rows.
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx2_block.h"

/// Stores `count` (at most 8) column sums as the first `count` floats of each of the panel's `rows` rows from `out`.
PG_AVX2 static inline void store_columns(__m256 *sums, int count, int rows, float *out, long n) {
    __m256 v[8];
    for (int j = 0; j < 8; j++) v[j] = j < count ? sums[j] : _mm256_setzero_ps();
    transpose8x8(v);
    for (int r = 0; r < rows; r++) store8(out + r * n, v[r], count);
}

/// C columns (8 to 11) against the panel's packed weights `w`, over all of k, from `x`, their copy (k rows of C
/// floats, contiguous): C sums of the 8 rows, started at the rows' biases, clamped to `bounds` and stored.
#define COLUMNS_BLOCK(C)                                                                                              \
    /* Not inlined: within the caller clang spilled sums to the stack. */                                        \
    PG_AVX2 static __attribute__((noinline)) void columns##C(const float *w, int k, const float *x,                   \
                                                                        __m256 start, const float *bounds, int rows, \
                                                                        float *out, long n) {                        \
        __m256 sums[C];                                                                                               \
        for (int j = 0; j < C; j++) sums[j] = start;                                                                  \
        for (int kk = 0; kk < k; kk++, w += PANEL, x += C) {                                                          \
            /* Every step, where every other one would do: clang then spills sums to the stack in this loop. */      \
            _mm_prefetch((const char *)(w + AHEAD * PANEL), _MM_HINT_T0);                                             \
            const __m256 weights = _mm256_loadu_ps(w);                                                                \
            for (int j = 0; j < C; j++) sums[j] = _mm256_fmadd_ps(weights, _mm256_broadcast_ss(x + j), sums[j]);      \
        }                                                                                                             \
        const __m256 low = _mm256_broadcast_ss(bounds), high = _mm256_broadcast_ss(bounds + 1);                       \
        for (int j = 0; j < C; j++) sums[j] = _mm256_min_ps(high, _mm256_max_ps(low, sums[j]));                       \
        store_columns(sums, 8, rows, out, n);                                                                         \
        if (C > 8) store_columns(sums + 8, C - 8, rows, out + 8, n);                                                  \
    }

COLUMNS_BLOCK(8)
COLUMNS_BLOCK(9)
COLUMNS_BLOCK(10)
COLUMNS_BLOCK(11)
#undef COLUMNS_BLOCK

/// The plane's n columns as blocks of 8 to 11, as even as they go (49: 10, 10, 10, 10, 9): each block's sums in
/// registers, and at least the 8 chains of multiply-adds that keep both units busy. (Blocks of 12 ran at 56 GFLOPS
/// where 11 ran at 83, with no spill in their loop: not found why.)
static inline int block_count(int n) { return (n + 10) / 11; }
static inline int block_start(int n, int block) {
    const int count = block_count(n), base = n / count, extra = n % count;
    return block * base + (block < extra ? block : extra);
}

/// Copies each block of columns of x (k rows, `n` apart) into `blocks`, one after another, each k rows of its width.
PG_AVX2 static void copy_blocks(const float *x, int k, int n, float *blocks) {
    const int count = block_count(n);
    for (int b = 0; b < count; b++) {
        const int c0 = block_start(n, b), width = block_start(n, b + 1) - c0;
        float *out = blocks + (long)c0 * k;
        for (int kk = 0; kk < k; kk++, out += width) {
            const float *row = x + (long)kk * n + c0;
            _mm256_storeu_ps(out, _mm256_loadu_ps(row));
            store8(out + 8, load8(row + 8, width - 8), width - 8);
        }
    }
}

PG_AVX2 void pg_small_plane_gemm_avx2(const float *packed, int m, int k, const float *x, int n, float *y, const float *bias,
                                      int activation, float low_bound, float high_bound, float *blocks) {
    float bounds[2];
    pg_activation_bounds(activation, low_bound, high_bound, bounds);
    copy_blocks(x, k, n, blocks);
    const int panels = (m + PANEL - 1) / PANEL, count = block_count(n);
    for (int p = 0; p < panels; p++) {
        const int row0 = p * PANEL, rows = m - row0 < PANEL ? m - row0 : PANEL;
        const float *w = packed + (long)row0 * k;
        // The rows' biases as one vector: where the panel has fewer than 8 rows, from a copy with zeros past them.
        float biases[PANEL] = {0};
        for (int r = 0; bias && r < rows; r++) biases[r] = bias[row0 + r];
        const __m256 start = _mm256_loadu_ps(biases);
        for (int b = 0; b < count; b++) {
            const int c0 = block_start(n, b), width = block_start(n, b + 1) - c0;
            const float *source = blocks + (long)c0 * k;
            float *out = y + (long)row0 * n + c0;
            switch (width) {
            case 11: columns11(w, k, source, start, bounds, rows, out, n); break;
            case 10: columns10(w, k, source, start, bounds, rows, out, n); break;
            case 9: columns9(w, k, source, start, bounds, rows, out, n); break;
            default: columns8(w, k, source, start, bounds, rows, out, n); break;
            }
        }
    }
}
#endif
