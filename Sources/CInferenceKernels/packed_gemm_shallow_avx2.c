// pg_packed_gemm on AVX2 for a shallow product over a convolution's planes (k ≤ SHALLOW_K: MobileNetV2's stem, its
// 1×1 convolutions from 16, 24 and 32 channels). Each panel-by-tile takes few multiply-adds there (16 steps of k: 256
// cycles), so that what pg_panel_tile_avx2 does around them (three blocks' set-up, sums kept across chunks of k,
// choices of what to fetch) cost as much again: a 1×1 convolution from 16 channels ran at 60 GFLOPS on AVX2 where
// AVX-512 ran at 87. Here every block takes all of k in one loop, its sums start from the rows' biases, and the
// loops over panels and tiles are inside one call.
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx2_helpers.h"

/// Steps of k unrolled in a block's loop, with one fetch decision for all of them.
enum { UNROLL = 4 };

/// Rows `rows` (at most `R`) of a panel, `w` at its first, against `V` vectors of 8 columns of x from `source`, over
/// all `k` steps; the sums start from `bias` (per row; none when NULL) and are stored clamped to [bounds[0],
/// bounds[1]] into y from `out` (rows `n` floats apart). The bounds are read from memory once k is done: in registers
/// they would take two of the sixteen the 6 × 2 block needs, and its sums would spill to the stack. R × V sums: 6 × 2 or 2 × 4, 12 or 8 chains of multiply-adds. Where `fetch` is
/// not NULL, the block fetches the same k rows of x from there (the next tile), two cache lines a row.
#define SHALLOW_BLOCK(R, V)                                                                                             \
    PG_AVX2 static inline __attribute__((always_inline)) void block##R##x##V(                                           \
        const float *w, int k, const float *source, long x_pitch, const float *fetch, const float *bias, int rows,     \
        float *out, long n, const float *bounds) {                                                                 \
        __m256 sums[R][V];                                                                                              \
        for (int r = 0; r < R; r++) {                                                                                   \
            const __m256 start = bias && r < rows ? _mm256_set1_ps(bias[r]) : _mm256_setzero_ps();                     \
            for (int v = 0; v < V; v++) sums[r][v] = start;                                                             \
        }                                                                                                               \
        int kk = 0;                                                                                                     \
        for (; kk + UNROLL <= k; kk += UNROLL) {                                                                        \
            if (fetch) {                                                                                                \
                for (int u = 0; u < UNROLL; u++) {                                                                      \
                    _mm_prefetch((const char *)(fetch + (kk + u) * x_pitch), _MM_HINT_T0);                              \
                    _mm_prefetch((const char *)(fetch + (kk + u) * x_pitch + 16), _MM_HINT_T0);                         \
                }                                                                                                       \
            }                                                                                                           \
            for (int u = 0; u < UNROLL; u++) STEP(R, V, kk + u);                                                        \
        }                                                                                                               \
        for (; kk < k; kk++) STEP(R, V, kk);                                                                            \
        const __m256 low = _mm256_broadcast_ss(bounds), high = _mm256_broadcast_ss(bounds + 1);                        \
        for (int r = 0; r < R; r++) {                                                                                   \
            for (int v = 0; v < V && r < rows; v++) {                                                                   \
                _mm256_storeu_ps(out + r * n + 8 * v, _mm256_min_ps(high, _mm256_max_ps(low, sums[r][v])));            \
            }                                                                                                           \
        }                                                                                                               \
    }

/// One step `kk` of a block: V vectors of x, each row's weight broadcast, R × V multiply-adds.
#define STEP(R, V, kk)                                                                                                  \
    do {                                                                                                                \
        __m256 xs[V];                                                                                                   \
        for (int v = 0; v < V; v++) xs[v] = _mm256_loadu_ps(source + (long)(kk) * x_pitch + 8 * v);                     \
        for (int r = 0; r < R; r++) {                                                                                   \
            const __m256 weight = _mm256_broadcast_ss(w + (long)(kk) * PANEL + r);                                      \
            for (int v = 0; v < V; v++) sums[r][v] = _mm256_fmadd_ps(weight, xs[v], sums[r][v]);                        \
        }                                                                                                               \
    } while (0)

SHALLOW_BLOCK(6, 2)
SHALLOW_BLOCK(2, 4)
#undef STEP
#undef SHALLOW_BLOCK

/// Panel `p` against the whole tile from column `n0`: rows 0-5 as two blocks of 16 columns and rows 6-7 as one of
/// 32 (a panel of one or two rows: that block alone). `fetch`: the first block fetches the next tile's rows.
PG_AVX2 static inline void panel_tile(const float *packed, int m, int k, const float *x, long x_pitch, float *y, int n, int p,
                                      int n0, const float *bias, int fetch, const float *bounds) {
    const int row0 = p * PANEL, rows = m - row0 < PANEL ? m - row0 : PANEL;
    const float *w = packed + (long)row0 * k, *source = x + n0, *next = fetch && n0 + 2 * TILE <= n ? source + TILE : NULL;
    const float *b = bias ? bias + row0 : NULL;
    float *out = y + (long)row0 * n + n0;
    if (rows <= 2) {
        block2x4(w, k, source, x_pitch, next, b, rows, out, n, bounds);
        return;
    }
    block6x2(w, k, source, x_pitch, next, b, rows, out, n, bounds);
    block6x2(w, k, source + 16, x_pitch, NULL, b, rows, out + 16, n, bounds);
    if (rows > 6) block2x4(w + 6, k, source, x_pitch, NULL, b ? b + 6 : NULL, rows - 6, out + 6 * n, n, bounds);
}

PG_AVX2 int pg_shallow_gemm_avx2(const float *packed, int m, int k, const float *x, int n, long x_pitch, float *y, const float *bias,
                                 int activation, float low_bound, float high_bound, int panel_first) {
    // The activation as bounds to clamp to: ±infinity for none, 0 and +infinity for Relu.
    const float infinity = __builtin_inff();
    const float bounds[2] = {activation == PG_ACTIVATION_NONE ? -infinity : activation == PG_ACTIVATION_RELU ? 0.0f : low_bound,
                             activation == PG_ACTIVATION_CLIP ? high_bound : infinity};
    const int panels = (m + PANEL - 1) / PANEL, whole = n / TILE * TILE;
    if (panel_first) {
        // Each panel against every tile, which stay in L2: the first panel fetches each tile's successor.
        for (int p = 0; p < panels; p++) {
            for (int n0 = 0; n0 < whole; n0 += TILE) panel_tile(packed, m, k, x, x_pitch, y, n, p, n0, bias, p == 0, bounds);
        }
    } else {
        for (int n0 = 0; n0 < whole; n0 += TILE) {
            for (int p = 0; p < panels; p++) panel_tile(packed, m, k, x, x_pitch, y, n, p, n0, bias, p == 0, bounds);
        }
    }
    return whole;
}
#endif
