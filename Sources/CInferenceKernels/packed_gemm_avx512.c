// pg_packed_gemm's inner kernel on AVX-512: one panel of 8 rows against one tile of 32 columns (two vectors), the
// 16 sums in registers across all of k; a tile's last columns by masked loads and stores.
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx512_helpers.h"

__attribute__((target("avx512f")))
static inline __m512 finish(__m512 value, float bias, __m512 column_bias, int activation, __m512 low, __m512 high) {
    return activate(_mm512_add_ps(_mm512_add_ps(value, _mm512_set1_ps(bias)), column_bias), activation, low, high);
}

/// One panel of 8 rows of y against one tile of 32 columns (`columns` of them real), over all of k.
__attribute__((target("avx512f")))
void pg_panel_tile_avx512(const float *packed, int m, int k, const float *x, long x_pitch, long tile_stride, long ahead,
                          int prefetch, float *y, int n, int p, int n0, const float *bias, const float *column_bias,
                          int activation, float low_bound, float high_bound) {
    const __m512 low = _mm512_set1_ps(low_bound), high = _mm512_set1_ps(high_bound);
    const int columns = n - n0 < TILE ? n - n0 : TILE;
    const __mmask16 first = first_lanes(columns), second = first_lanes(columns - 16);
    const float *w = packed + (long)p * k * PANEL;
    const float *source = x + (long)(n0 / TILE) * tile_stride;
    if (m - p * PANEL == 1) {
        // One row (a Linear layer at batch 1): the other seven of the panel are zeros, and their products would
        // make a matrix-vector product, which memory bounds, bound by the multiplier instead. Two sums per half
        // tile, even and odd steps, so that no add waits for the one before.
        __m512 even0 = _mm512_setzero_ps(), even1 = even0, odd0 = even0, odd1 = even0;
        int kk = 0;
        for (; kk + 1 < k; kk += 2, w += 2 * PANEL, source += 2 * x_pitch) {
            if (prefetch) {
                _mm_prefetch((const char *)(source + ahead), _MM_HINT_T0);
                _mm_prefetch((const char *)(source + ahead + 16), _MM_HINT_T0);
                _mm_prefetch((const char *)(source + ahead + x_pitch), _MM_HINT_T0);
                _mm_prefetch((const char *)(source + ahead + x_pitch + 16), _MM_HINT_T0);
            }
            const __m512 v0 = _mm512_set1_ps(w[0]), v1 = _mm512_set1_ps(w[PANEL]);
            even0 = _mm512_fmadd_ps(v0, _mm512_maskz_loadu_ps(first, source), even0);
            even1 = _mm512_fmadd_ps(v0, _mm512_maskz_loadu_ps(second, source + 16), even1);
            odd0 = _mm512_fmadd_ps(v1, _mm512_maskz_loadu_ps(first, source + x_pitch), odd0);
            odd1 = _mm512_fmadd_ps(v1, _mm512_maskz_loadu_ps(second, source + x_pitch + 16), odd1);
        }
        if (kk < k) {
            const __m512 v0 = _mm512_set1_ps(w[0]);
            even0 = _mm512_fmadd_ps(v0, _mm512_maskz_loadu_ps(first, source), even0);
            even1 = _mm512_fmadd_ps(v0, _mm512_maskz_loadu_ps(second, source + 16), even1);
        }
        const int row = p * PANEL;
        const float b = bias ? bias[row] : 0.0f;
        const __m512 column0 = column_bias ? _mm512_maskz_loadu_ps(first, column_bias + n0) : _mm512_setzero_ps();
        const __m512 column1 = column_bias ? _mm512_maskz_loadu_ps(second, column_bias + n0 + 16) : _mm512_setzero_ps();
        float *out = y + (long)row * n + n0;
        _mm512_mask_storeu_ps(out, first, finish(_mm512_add_ps(even0, odd0), b, column0, activation, low, high));
        if (second) _mm512_mask_storeu_ps(out + 16, second, finish(_mm512_add_ps(even1, odd1), b, column1, activation, low, high));
        return;
    }
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    __m512 b0 = a0, b1 = a0, b2 = a0, b3 = a0, b4 = a0, b5 = a0, b6 = a0, b7 = a0;
    // A last tile of 16 columns or fewer (a 14×14 plane's last 4): its first half alone, half the multiply-adds.
    for (int kk = 0; !second && kk < k; kk++, w += PANEL, source += x_pitch) {
        if (prefetch) _mm_prefetch((const char *)(source + ahead), _MM_HINT_T0);
        _mm_prefetch((const char *)(w + AHEAD * PANEL), _MM_HINT_T0);
        const __m512 x0 = _mm512_maskz_loadu_ps(first, source);
        a0 = _mm512_fmadd_ps(_mm512_set1_ps(w[0]), x0, a0);
        a1 = _mm512_fmadd_ps(_mm512_set1_ps(w[1]), x0, a1);
        a2 = _mm512_fmadd_ps(_mm512_set1_ps(w[2]), x0, a2);
        a3 = _mm512_fmadd_ps(_mm512_set1_ps(w[3]), x0, a3);
        a4 = _mm512_fmadd_ps(_mm512_set1_ps(w[4]), x0, a4);
        a5 = _mm512_fmadd_ps(_mm512_set1_ps(w[5]), x0, a5);
        a6 = _mm512_fmadd_ps(_mm512_set1_ps(w[6]), x0, a6);
        a7 = _mm512_fmadd_ps(_mm512_set1_ps(w[7]), x0, a7);
    }
    for (int kk = 0; second && kk < k; kk++, w += PANEL, source += x_pitch) {
        if (prefetch) {
            _mm_prefetch((const char *)(source + ahead), _MM_HINT_T0);
            _mm_prefetch((const char *)(source + ahead + 16), _MM_HINT_T0);
        }
        _mm_prefetch((const char *)(w + AHEAD * PANEL), _MM_HINT_T0);
        const __m512 x0 = _mm512_maskz_loadu_ps(first, source);
        const __m512 x1 = _mm512_maskz_loadu_ps(second, source + 16);
        __m512 v;
        v = _mm512_set1_ps(w[0]); a0 = _mm512_fmadd_ps(v, x0, a0); b0 = _mm512_fmadd_ps(v, x1, b0);
        v = _mm512_set1_ps(w[1]); a1 = _mm512_fmadd_ps(v, x0, a1); b1 = _mm512_fmadd_ps(v, x1, b1);
        v = _mm512_set1_ps(w[2]); a2 = _mm512_fmadd_ps(v, x0, a2); b2 = _mm512_fmadd_ps(v, x1, b2);
        v = _mm512_set1_ps(w[3]); a3 = _mm512_fmadd_ps(v, x0, a3); b3 = _mm512_fmadd_ps(v, x1, b3);
        v = _mm512_set1_ps(w[4]); a4 = _mm512_fmadd_ps(v, x0, a4); b4 = _mm512_fmadd_ps(v, x1, b4);
        v = _mm512_set1_ps(w[5]); a5 = _mm512_fmadd_ps(v, x0, a5); b5 = _mm512_fmadd_ps(v, x1, b5);
        v = _mm512_set1_ps(w[6]); a6 = _mm512_fmadd_ps(v, x0, a6); b6 = _mm512_fmadd_ps(v, x1, b6);
        v = _mm512_set1_ps(w[7]); a7 = _mm512_fmadd_ps(v, x0, a7); b7 = _mm512_fmadd_ps(v, x1, b7);
    }
    const __m512 column0 = column_bias ? _mm512_maskz_loadu_ps(first, column_bias + n0) : _mm512_setzero_ps();
    const __m512 column1 = column_bias ? _mm512_maskz_loadu_ps(second, column_bias + n0 + 16) : _mm512_setzero_ps();
    const __m512 first_half[PANEL] = {a0, a1, a2, a3, a4, a5, a6, a7};
    const __m512 second_half[PANEL] = {b0, b1, b2, b3, b4, b5, b6, b7};
    for (int r = 0; r < PANEL; r++) {
        const int row = p * PANEL + r;
        if (row >= m) break;
        const float b = bias ? bias[row] : 0.0f;
        float *out = y + (long)row * n + n0;
        _mm512_mask_storeu_ps(out, first, finish(first_half[r], b, column0, activation, low, high));
        if (second) _mm512_mask_storeu_ps(out + 16, second, finish(second_half[r], b, column1, activation, low, high));
    }
}

#endif
