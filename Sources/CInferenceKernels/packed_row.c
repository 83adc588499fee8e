// Rows of activations times columns packed by pg_pack_columns: a Linear layer.
//
// One row (batch 1), which memory bounds (the default model's first fully-connected layer streams 74 MB of weights
// for 18,000 multiply-adds a column): each tile is read as two streams, its first and second half of k, each fetched
// ahead. One stream, as the packed product reads it, ran at 23-24 GB/s on the Xeon, two at 28-29 (the hardware
// prefetcher follows each within its page). The row is read as it is, k floats, where the packed product reads it
// packed as a panel: 8 floats a step, 7 of them zeros, 576 KB again for every tile.
//
// Several rows on AVX-512 (a ViT's tokens) against up to 1 MB of columns: 8 rows against a tile of 32 columns, each
// step broadcasting one value of each row straight from the rows, which the hardware prefetcher follows as 8 streams. The packed product first
// copies the rows into panels (pg_pack_weights), on every run: 6% of ViT-tiny's time at batch 8. Warm, ViT-tiny's
// layers at 159-170 GFLOPS, through the copy and the packed product 131-148.
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx2_block.h"
#include "avx512_helpers.h"

/// Steps of k each stream of one row's product is fetched ahead: 4 KB.
enum { ROW_AHEAD = 32 };
/// The most packed columns several rows are multiplied by straight from the rows: a 1 MB L2's worth (Zen 4's).
enum { ROWS_COLUMNS_BYTES = 1024 * 1024 };

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

/// Rows `row0` to `row0` + 7 of a (m rows of k floats) against the tile of columns from `n0`, over all of k. Rows past m
/// read row m − 1 and are not stored.
__attribute__((target("avx512f")))
static void rows_tile_avx512(const float *a, int m, int k, int row0, const float *tile, int n, int n0, float *y, const float *column_bias,
                             const float bounds[2]) {
    const float *rows[PANEL];
    for (int r = 0; r < PANEL; r++) rows[r] = a + (long)(row0 + r < m ? row0 + r : m - 1) * k;
    __m512 sums[PANEL][2];
    for (int r = 0; r < PANEL; r++) sums[r][0] = sums[r][1] = _mm512_setzero_ps();
    for (int kk = 0; kk < k; kk++, tile += TILE) {
        const __m512 x0 = _mm512_loadu_ps(tile), x1 = _mm512_loadu_ps(tile + 16);
        for (int r = 0; r < PANEL; r++) {
            const __m512 value = _mm512_set1_ps(rows[r][kk]);
            sums[r][0] = _mm512_fmadd_ps(value, x0, sums[r][0]);
            sums[r][1] = _mm512_fmadd_ps(value, x1, sums[r][1]);
        }
    }
    const __mmask16 lanes0 = first_lanes(n - n0), lanes1 = first_lanes(n - n0 - 16);
    const __m512 column0 = column_bias ? _mm512_maskz_loadu_ps(lanes0, column_bias + n0) : _mm512_setzero_ps();
    const __m512 column1 = column_bias ? _mm512_maskz_loadu_ps(lanes1, column_bias + n0 + 16) : _mm512_setzero_ps();
    const __m512 low = _mm512_set1_ps(bounds[0]), high = _mm512_set1_ps(bounds[1]);
    for (int r = 0; r < PANEL && row0 + r < m; r++) {
        float *out = y + (long)(row0 + r) * n + n0;
        _mm512_mask_storeu_ps(out, lanes0, _mm512_min_ps(high, _mm512_max_ps(low, _mm512_add_ps(sums[r][0], column0))));
        _mm512_mask_storeu_ps(out + 16, lanes1, _mm512_min_ps(high, _mm512_max_ps(low, _mm512_add_ps(sums[r][1], column1))));
    }
}
#endif

int pg_rows_packed_columns(const float *a, int m, int k, const float *packed, int n, float *y, const float *column_bias, int activation,
                           float low_bound, float high_bound) {
#if defined(__x86_64__)
    float bounds[2];
    pg_activation_bounds(activation, low_bound, high_bound, bounds);
    if (m > 1) {
        // Each panel of 8 rows (in L1) against every tile of columns, which must stay in L2 (a ViT-tiny's or
        // ConvNeXt-tiny's first two stages', 147-590 KB): larger ones take the packed product, which orders its
        // loops by what fits.
        if (pg_isa() != PG_ISA_AVX512 || (long)k * ((n + TILE - 1) / TILE) * TILE * 4 > ROWS_COLUMNS_BYTES) return 0;
        for (int row0 = 0; row0 < m; row0 += PANEL) {
            for (int n0 = 0; n0 < n; n0 += TILE) {
                rows_tile_avx512(a, m, k, row0, packed + (long)n0 * k, n, n0, y, column_bias, bounds);
            }
        }
        return 1;
    }
    switch (pg_isa()) {
    case PG_ISA_AVX512: row_packed_columns_avx512(a, k, packed, n, y, column_bias, bounds); return 1;
    case PG_ISA_AVX2: row_packed_columns_avx2(a, k, packed, n, y, column_bias, bounds); return 1;
    }
#endif
    if (m > 1) return 0;
    // The portable path: tile by tile, column by column.
    for (int c = 0; c < n; c++) {
        const float *column = packed + (long)(c / TILE) * k * TILE + c % TILE;
        float sum = column_bias ? column_bias[c] : 0.0f;
        for (int kk = 0; kk < k; kk++) sum += a[kk] * column[(long)kk * TILE];
        y[c] = sum;
    }
    pg_bias_activation(y, n, 0.0f, activation, low_bound, high_bound);
    return 1;
}
