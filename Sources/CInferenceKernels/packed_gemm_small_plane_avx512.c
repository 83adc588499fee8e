// pg_packed_gemm for a convolution over a small plane of 33 to 49 columns (a 7×7 plane's 49: the last stage of
// MobileNet, ResNet and EfficientNet) on AVX-512. In tiles of 32 the 49 columns are 32 and 17, and the 17 take all of
// a tile's multiply-adds: a quarter of the work is spent on columns that do not exist. Here each panel's 8 rows take
// three vectors of 16 columns (24 sums), the third masked where the plane has fewer than 48, and a 49th column one
// vector of the panel's 8 rows: its weights as they are packed (8 rows a step) times the column's value.
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx2_block.h"
#include "avx512_helpers.h"

/// One panel of 8 rows (`rows` of them real) against the whole plane; `extra`: the plane has a 49th column.
#define SMALL_PLANE_PANEL(name, extra)                                                                                   \
    __attribute__((target("avx512f,avx512vl"), noinline)) static void name(                                             \
        const float *w, int k, const float *x, int n, float *out, int rows, const float *bias, const float bounds[2]) {  \
        const __mmask16 third = first_lanes(n - 32);                                                                     \
        __m512 sums[PANEL][3];                                                                                           \
        for (int r = 0; r < PANEL; r++) {                                                                                \
            const __m512 start = _mm512_set1_ps(bias && r < rows ? bias[r] : 0.0f);                                      \
            sums[r][0] = sums[r][1] = sums[r][2] = start;                                                                \
        }                                                                                                                \
        __m256 column = _mm256_setzero_ps();                                                                             \
        for (int kk = 0; kk < k; kk++, w += PANEL, x += n) {                                                             \
            _mm_prefetch((const char *)(w + AHEAD * PANEL), _MM_HINT_T0);                                                \
            const __m512 x0 = _mm512_loadu_ps(x), x1 = _mm512_loadu_ps(x + 16), x2 = _mm512_maskz_loadu_ps(third, x + 32); \
            for (int r = 0; r < PANEL; r++) {                                                                            \
                const __m512 value = _mm512_set1_ps(w[r]);                                                               \
                sums[r][0] = _mm512_fmadd_ps(value, x0, sums[r][0]);                                                     \
                sums[r][1] = _mm512_fmadd_ps(value, x1, sums[r][1]);                                                     \
                sums[r][2] = _mm512_fmadd_ps(value, x2, sums[r][2]);                                                     \
            }                                                                                                            \
            if (extra) column = _mm256_fmadd_ps(_mm256_loadu_ps(w), _mm256_broadcast_ss(x + 48), column);                \
        }                                                                                                                \
        const __m512 low = _mm512_set1_ps(bounds[0]), high = _mm512_set1_ps(bounds[1]);                                  \
        for (int r = 0; r < rows; r++) {                                                                                 \
            float *row = out + (long)r * n;                                                                              \
            _mm512_storeu_ps(row, _mm512_min_ps(high, _mm512_max_ps(low, sums[r][0])));                                  \
            _mm512_storeu_ps(row + 16, _mm512_min_ps(high, _mm512_max_ps(low, sums[r][1])));                             \
            _mm512_mask_storeu_ps(row + 32, third, _mm512_min_ps(high, _mm512_max_ps(low, sums[r][2])));                 \
        }                                                                                                                \
        if (extra) {                                                                                                     \
            float values[PANEL];                                                                                         \
            _mm256_storeu_ps(values, column);                                                                            \
            for (int r = 0; r < rows; r++) {                                                                             \
                const float value = values[r] + (bias ? bias[r] : 0.0f);                                                 \
                out[(long)r * n + 48] = value < bounds[0] ? bounds[0] : value > bounds[1] ? bounds[1] : value;           \
            }                                                                                                            \
        }                                                                                                                \
    }

SMALL_PLANE_PANEL(panel_48, 0)
SMALL_PLANE_PANEL(panel_49, 1)
#undef SMALL_PLANE_PANEL

void pg_small_plane_gemm_avx512(const float *packed, int m, int k, const float *x, int n, float *y, const float *bias, int activation,
                                float low_bound, float high_bound) {
    float bounds[2];
    pg_activation_bounds(activation, low_bound, high_bound, bounds);
    for (int row0 = 0; row0 < m; row0 += PANEL) {
        const int rows = m - row0 < PANEL ? m - row0 : PANEL;
        const float *w = packed + (long)row0 * k, *b = bias ? bias + row0 : NULL;
        if (n == 49) panel_49(w, k, x, n, y + (long)row0 * n, rows, b, bounds);
        else panel_48(w, k, x, n, y + (long)row0 * n, rows, b, bounds);
    }
}
#endif
