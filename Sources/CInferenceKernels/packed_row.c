// One row times columns packed by pg_pack_columns: a Linear layer at batch 1, which memory bounds (the default
// model's first fully-connected layer streams 74 MB of weights for 18,000 multiply-adds a column). Each tile is read
// as two streams, its first and second half of k, each fetched ahead: one stream, as the packed product reads it,
// ran at 23-24 GB/s on the Xeon, two at 28-29 (the hardware prefetcher follows each within its page). The row is
// read as it is, k floats, where the packed product reads it packed as a panel: 8 floats a step, 7 of them zeros,
// 576 KB again for every tile.
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx2_block.h"
#include "avx512_helpers.h"

/// Steps of k each stream is fetched ahead: 4 KB.
enum { ROW_AHEAD = 32 };

__attribute__((target("avx512f")))
static void row_packed_columns_avx512(const float *a, int k, const float *packed, int n, float *y, const float *column_bias,
                                      const float bounds[2]) {
    const int half = k / 2;
    const __m512 low = _mm512_set1_ps(bounds[0]), high = _mm512_set1_ps(bounds[1]);
    for (int n0 = 0; n0 < n; n0 += TILE) {
        const float *first = packed + (long)n0 * k, *second = first + (long)half * TILE;
        __m512 s0 = _mm512_setzero_ps(), s1 = s0, t0 = s0, t1 = s0;
        for (int kk = 0; kk < half; kk++, first += TILE, second += TILE) {
            _mm_prefetch((const char *)(first + ROW_AHEAD * TILE), _MM_HINT_T0);
            _mm_prefetch((const char *)(first + ROW_AHEAD * TILE + 16), _MM_HINT_T0);
            _mm_prefetch((const char *)(second + ROW_AHEAD * TILE), _MM_HINT_T0);
            _mm_prefetch((const char *)(second + ROW_AHEAD * TILE + 16), _MM_HINT_T0);
            const __m512 u = _mm512_set1_ps(a[kk]), v = _mm512_set1_ps(a[half + kk]);
            s0 = _mm512_fmadd_ps(u, _mm512_loadu_ps(first), s0);
            s1 = _mm512_fmadd_ps(u, _mm512_loadu_ps(first + 16), s1);
            t0 = _mm512_fmadd_ps(v, _mm512_loadu_ps(second), t0);
            t1 = _mm512_fmadd_ps(v, _mm512_loadu_ps(second + 16), t1);
        }
        // An odd k's last step.
        for (int kk = 2 * half; kk < k; kk++, second += TILE) {
            const __m512 v = _mm512_set1_ps(a[kk]);
            t0 = _mm512_fmadd_ps(v, _mm512_loadu_ps(second), t0);
            t1 = _mm512_fmadd_ps(v, _mm512_loadu_ps(second + 16), t1);
        }
        const __mmask16 lanes0 = first_lanes(n - n0), lanes1 = first_lanes(n - n0 - 16);
        __m512 y0 = _mm512_add_ps(s0, t0), y1 = _mm512_add_ps(s1, t1);
        if (column_bias) {
            y0 = _mm512_add_ps(y0, _mm512_maskz_loadu_ps(lanes0, column_bias + n0));
            y1 = _mm512_add_ps(y1, _mm512_maskz_loadu_ps(lanes1, column_bias + n0 + 16));
        }
        _mm512_mask_storeu_ps(y + n0, lanes0, _mm512_min_ps(high, _mm512_max_ps(low, y0)));
        _mm512_mask_storeu_ps(y + n0 + 16, lanes1, _mm512_min_ps(high, _mm512_max_ps(low, y1)));
    }
}

PG_AVX2 static void row_packed_columns_avx2(const float *a, int k, const float *packed, int n, float *y, const float *column_bias,
                                            const float bounds[2]) {
    const int half = k / 2;
    const __m256 low = _mm256_set1_ps(bounds[0]), high = _mm256_set1_ps(bounds[1]);
    for (int n0 = 0; n0 < n; n0 += TILE) {
        const float *first = packed + (long)n0 * k, *second = first + (long)half * TILE;
        __m256 s[4], t[4];
        for (int v = 0; v < 4; v++) s[v] = t[v] = _mm256_setzero_ps();
        for (int kk = 0; kk < half; kk++, first += TILE, second += TILE) {
            _mm_prefetch((const char *)(first + ROW_AHEAD * TILE), _MM_HINT_T0);
            _mm_prefetch((const char *)(first + ROW_AHEAD * TILE + 16), _MM_HINT_T0);
            _mm_prefetch((const char *)(second + ROW_AHEAD * TILE), _MM_HINT_T0);
            _mm_prefetch((const char *)(second + ROW_AHEAD * TILE + 16), _MM_HINT_T0);
            const __m256 u = _mm256_broadcast_ss(a + kk), w = _mm256_broadcast_ss(a + half + kk);
            for (int v = 0; v < 4; v++) {
                s[v] = _mm256_fmadd_ps(u, _mm256_loadu_ps(first + 8 * v), s[v]);
                t[v] = _mm256_fmadd_ps(w, _mm256_loadu_ps(second + 8 * v), t[v]);
            }
        }
        for (int kk = 2 * half; kk < k; kk++, second += TILE) {
            const __m256 w = _mm256_broadcast_ss(a + kk);
            for (int v = 0; v < 4; v++) t[v] = _mm256_fmadd_ps(w, _mm256_loadu_ps(second + 8 * v), t[v]);
        }
        for (int v = 0; v < 4; v++) {
            const long count = n - n0 - 8 * v;
            __m256 value = _mm256_add_ps(s[v], t[v]);
            if (column_bias) value = _mm256_add_ps(value, load8(column_bias + n0 + 8 * v, count));
            store8(y + n0 + 8 * v, _mm256_min_ps(high, _mm256_max_ps(low, value)), count);
        }
    }
}
#endif

void pg_row_packed_columns(const float *a, int k, const float *packed, int n, float *y, const float *column_bias, int activation,
                           float low_bound, float high_bound) {
#if defined(__x86_64__)
    float bounds[2];
    pg_activation_bounds(activation, low_bound, high_bound, bounds);
    switch (pg_isa()) {
    case PG_ISA_AVX512: row_packed_columns_avx512(a, k, packed, n, y, column_bias, bounds); return;
    case PG_ISA_AVX2: row_packed_columns_avx2(a, k, packed, n, y, column_bias, bounds); return;
    }
#endif
    // The portable path: tile by tile, column by column.
    for (int c = 0; c < n; c++) {
        const float *column = packed + (long)(c / TILE) * k * TILE + c % TILE;
        float sum = column_bias ? column_bias[c] : 0.0f;
        for (int kk = 0; kk < k; kk++) sum += a[kk] * column[(long)kk * TILE];
        y[c] = sum;
    }
    pg_bias_activation(y, n, 0.0f, activation, low_bound, high_bound);
}
