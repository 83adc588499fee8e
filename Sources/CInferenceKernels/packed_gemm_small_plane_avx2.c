// pg_packed_gemm for a convolution over a small plane (33 to 55 columns: a 7×7 plane's 49, the last stage of
// MobileNet, ResNet and EfficientNet) on AVX2. In tiles of 32 the 49 columns are 32 and 17, and the 17 take 24 columns
// of multiply-adds: an eighth of the work is spent on columns that do not exist. Here each row's whole vectors (6 for
// 49) are 2-row blocks, and each column past them (1 for 49) is one vector of the panel's 8 rows: its weights as they
// are packed (8 rows a step) times the column's value, stored down the rows. MobileNetV2's 7×7 layers at batch 1:
// 2.13-2.21 ms in tiles, 2.02-2.10 here.
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx2_block.h"

/// 2 rows × V vectors: every whole vector of a row of the plane, 2V chains of multiply-adds (12 for 49 columns).
/// `lead`: the panel's first block, which fetches its weights ahead.
#define SMALL_PLANE_BLOCK(V)                                                                                          \
    PG_AVX2 static inline __attribute__((always_inline)) void rows2x##V(const float *w, int k, const float *x, long n,  \
                                                                       int lead, const pg_block_output o) {           \
        __m256 sums[2][V];                                                                                            \
        for (int r = 0; r < 2; r++) {                                                                                 \
            const __m256 start = o.bias && r < o.rows ? _mm256_set1_ps(o.bias[r]) : _mm256_setzero_ps();             \
            for (int v = 0; v < V; v++) sums[r][v] = start;                                                           \
        }                                                                                                             \
        for (int kk = 0; kk < k; kk++, w += PANEL, x += n) {                                                          \
            /* The first block of a panel brings its weights in: the next line every other step. */                  \
            if (lead && (kk & 1) == 0) _mm_prefetch((const char *)(w + AHEAD * PANEL), _MM_HINT_T0);                  \
            /* Both rows' weights, then one vector of x at a time: 12 sums, 2 weights and 1 vector of x are 15 of   \
               the 16 registers, where all 6 vectors of x at once would spill (47 GFLOPS instead of 80). */            \
            const __m256 w0 = _mm256_broadcast_ss(w), w1 = _mm256_broadcast_ss(w + 1);                                \
            for (int v = 0; v < V; v++) {                                                                             \
                const __m256 value = _mm256_loadu_ps(x + 8 * v);                                                      \
                sums[0][v] = _mm256_fmadd_ps(w0, value, sums[0][v]);                                                  \
                sums[1][v] = _mm256_fmadd_ps(w1, value, sums[1][v]);                                                  \
            }                                                                                                         \
        }                                                                                                             \
        const __m256 low = _mm256_broadcast_ss(o.bounds), high = _mm256_broadcast_ss(o.bounds + 1);                  \
        for (int r = 0; r < 2 && r < o.rows; r++) {                                                                   \
            for (int v = 0; v < V; v++) {                                                                             \
                _mm256_storeu_ps(o.out + r * o.n + 8 * v, _mm256_min_ps(high, _mm256_max_ps(low, sums[r][v])));       \
            }                                                                                                         \
        }                                                                                                             \
    }

SMALL_PLANE_BLOCK(4)
SMALL_PLANE_BLOCK(5)
SMALL_PLANE_BLOCK(6)
#undef SMALL_PLANE_BLOCK

/// Column `c` of the panel's rows (all eight in one vector, as the weights are packed), stored down the rows.
PG_AVX2 static inline void column(const float *w, int k, const float *x, long n, int c, int rows, const float *bias, const float *bounds,
                                  float *out) {
    // Two chains, even and odd steps, so that each multiply-add waits less on the one before.
    __m256 even = bias ? _mm256_loadu_ps(bias) : _mm256_setzero_ps(), odd = _mm256_setzero_ps();
    int kk = 0;
    for (; kk + 1 < k; kk += 2) {
        even = _mm256_fmadd_ps(_mm256_loadu_ps(w + (long)kk * PANEL), _mm256_broadcast_ss(x + (long)kk * n + c), even);
        odd = _mm256_fmadd_ps(_mm256_loadu_ps(w + (long)(kk + 1) * PANEL), _mm256_broadcast_ss(x + (long)(kk + 1) * n + c), odd);
    }
    if (kk < k) even = _mm256_fmadd_ps(_mm256_loadu_ps(w + (long)kk * PANEL), _mm256_broadcast_ss(x + (long)kk * n + c), even);
    const __m256 value = _mm256_min_ps(_mm256_broadcast_ss(bounds + 1), _mm256_max_ps(_mm256_broadcast_ss(bounds), _mm256_add_ps(even, odd)));
    float lanes[8];
    _mm256_storeu_ps(lanes, value);
    for (int r = 0; r < rows; r++) out[(long)r * n + c] = lanes[r];
}

PG_AVX2 void pg_small_plane_gemm_avx2(const float *packed, int m, int k, const float *x, int n, float *y, const float *bias,
                                      int activation, float low_bound, float high_bound) {
    float bounds[2];
    pg_activation_bounds(activation, low_bound, high_bound, bounds);
    const int vectors = n / 8, panels = (m + PANEL - 1) / PANEL;
    for (int p = 0; p < panels; p++) {
        const int row0 = p * PANEL, rows = m - row0 < PANEL ? m - row0 : PANEL;
        const float *w = packed + (long)row0 * k, *b = bias ? bias + row0 : NULL;
        float *out = y + (long)row0 * n;
        for (int r = 0; r < rows; r += 2) {
            const pg_block_output o = {out + (long)r * n, n, rows - r < 2 ? rows - r : 2, n, b ? b + r : NULL, NULL, bounds};
            if (vectors == 6) rows2x6(w + r, k, x, n, r == 0, o);
            else if (vectors == 5) rows2x5(w + r, k, x, n, r == 0, o);
            else rows2x4(w + r, k, x, n, r == 0, o);
        }
        // The bias vector reads 8 rows' biases: where the panel has fewer, from a copy with zeros past them.
        float last_bias[PANEL] = {0};
        if (b && rows < PANEL) {
            for (int r = 0; r < rows; r++) last_bias[r] = b[r];
        }
        for (int c = vectors * 8; c < n; c++) column(w, k, x, n, c, rows, b && rows < PANEL ? last_bias : b, bounds, out);
    }
}
#endif
