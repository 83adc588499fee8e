// pg_packed_gemm's inner kernel on AVX2 with FMA, on the same packed layout as AVX-512's: with 16 vector registers
// of 8 floats, a panel of 8 rows against a tile of 32 columns is four blocks of 4 rows × 16 columns, each with its
// 8 sums in registers across all of k (two loads of x and four broadcast weights per 8 multiply-adds: the
// multipliers, not the loads, set the pace). The blocks read the same 16 columns of x one after the other, while
// they are still in L1. A tile's last columns load and store through lane masks.
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx2_helpers.h"

PG_AVX2 static inline __m256 finish(__m256 value, float bias, __m256 column_bias, int activation, __m256 low, __m256 high) {
    return activate8(_mm256_add_ps(_mm256_add_ps(value, _mm256_set1_ps(bias)), column_bias), activation, low, high);
}

/// The column biases of 8 columns from `column` on (`count` of them real), zeros without any.
PG_AVX2 static inline __m256 column_biases(const float *column_bias, long column, long count) {
    return column_bias ? load8(column_bias + column, count) : _mm256_setzero_ps();
}

/// 4 rows from `first_row` of the panel against 16 columns of x from `source` (`columns` of them real; all 16 when
/// `full`, a constant at each call), stored with biases and activation.
PG_AVX2 static inline __attribute__((always_inline)) void
block4x16(const float *w, int m, int k, const float *source, long x_pitch, const int full, long columns, int row0,
          int first_row, float *y, int n, long column, const float *bias, const float *column_bias, int activation,
          __m256 low, __m256 high, long ahead, int prefetch) {
    const __m256i mask0 = lanes8(columns), mask1 = lanes8(columns - 8);
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    w += first_row;
    for (int kk = 0; kk < k; kk++, w += PANEL, source += x_pitch) {
        if (prefetch) _mm_prefetch((const char *)(source + ahead), _MM_HINT_T0);
        _mm_prefetch((const char *)(w + AHEAD * PANEL), _MM_HINT_T0);
        const __m256 x0 = full ? _mm256_loadu_ps(source) : _mm256_maskload_ps(source, mask0);
        const __m256 x1 = full ? _mm256_loadu_ps(source + 8) : _mm256_maskload_ps(source + 8, mask1);
        __m256 v;
        v = _mm256_broadcast_ss(w + 0); a0 = _mm256_fmadd_ps(v, x0, a0); b0 = _mm256_fmadd_ps(v, x1, b0);
        v = _mm256_broadcast_ss(w + 1); a1 = _mm256_fmadd_ps(v, x0, a1); b1 = _mm256_fmadd_ps(v, x1, b1);
        v = _mm256_broadcast_ss(w + 2); a2 = _mm256_fmadd_ps(v, x0, a2); b2 = _mm256_fmadd_ps(v, x1, b2);
        v = _mm256_broadcast_ss(w + 3); a3 = _mm256_fmadd_ps(v, x0, a3); b3 = _mm256_fmadd_ps(v, x1, b3);
    }
    const __m256 column0 = column_biases(column_bias, column, columns), column1 = column_biases(column_bias, column + 8, columns - 8);
    const __m256 first_half[4] = {a0, a1, a2, a3}, second_half[4] = {b0, b1, b2, b3};
    for (int r = 0; r < 4; r++) {
        const int row = row0 + first_row + r;
        if (row >= m) break;
        const float b = bias ? bias[row] : 0.0f;
        float *out = y + (long)row * n + column;
        store8(out, finish(first_half[r], b, column0, activation, low, high), columns);
        store8(out + 8, finish(second_half[r], b, column1, activation, low, high), columns - 8);
    }
}

/// One row (a Linear layer at batch 1) against the tile's 32 columns: the panel's other seven rows are zeros, and
/// their products would bind a matrix-vector product by the multipliers instead of memory. Even and odd steps have
/// their own sums, so that no add waits for the one before.
PG_AVX2 static inline __attribute__((always_inline)) void
single_row(const float *w, int k, const float *source, long x_pitch, const int full, long columns, int row, float *y,
           int n, int n0, const float *bias, const float *column_bias, int activation, __m256 low, __m256 high,
           long ahead, int prefetch) {
    const __m256i m0 = lanes8(columns), m1 = lanes8(columns - 8), m2 = lanes8(columns - 16), m3 = lanes8(columns - 24);
#define LOAD(at, offset, mask) (full ? _mm256_loadu_ps((at) + (offset)) : _mm256_maskload_ps((at) + (offset), mask))
    __m256 e0 = _mm256_setzero_ps(), e1 = e0, e2 = e0, e3 = e0, o0 = e0, o1 = e0, o2 = e0, o3 = e0;
    int kk = 0;
    for (; kk + 1 < k; kk += 2, w += 2 * PANEL, source += 2 * x_pitch) {
        if (prefetch) {
            _mm_prefetch((const char *)(source + ahead), _MM_HINT_T0);
            _mm_prefetch((const char *)(source + ahead + 16), _MM_HINT_T0);
            _mm_prefetch((const char *)(source + ahead + x_pitch), _MM_HINT_T0);
            _mm_prefetch((const char *)(source + ahead + x_pitch + 16), _MM_HINT_T0);
        }
        const __m256 v0 = _mm256_broadcast_ss(w), v1 = _mm256_broadcast_ss(w + PANEL);
        const float *next = source + x_pitch;
        e0 = _mm256_fmadd_ps(v0, LOAD(source, 0, m0), e0);
        e1 = _mm256_fmadd_ps(v0, LOAD(source, 8, m1), e1);
        e2 = _mm256_fmadd_ps(v0, LOAD(source, 16, m2), e2);
        e3 = _mm256_fmadd_ps(v0, LOAD(source, 24, m3), e3);
        o0 = _mm256_fmadd_ps(v1, LOAD(next, 0, m0), o0);
        o1 = _mm256_fmadd_ps(v1, LOAD(next, 8, m1), o1);
        o2 = _mm256_fmadd_ps(v1, LOAD(next, 16, m2), o2);
        o3 = _mm256_fmadd_ps(v1, LOAD(next, 24, m3), o3);
    }
    if (kk < k) {
        const __m256 v0 = _mm256_broadcast_ss(w);
        e0 = _mm256_fmadd_ps(v0, LOAD(source, 0, m0), e0);
        e1 = _mm256_fmadd_ps(v0, LOAD(source, 8, m1), e1);
        e2 = _mm256_fmadd_ps(v0, LOAD(source, 16, m2), e2);
        e3 = _mm256_fmadd_ps(v0, LOAD(source, 24, m3), e3);
    }
#undef LOAD
    const float b = bias ? bias[row] : 0.0f;
    float *out = y + (long)row * n + n0;
    const __m256 sums[4] = {_mm256_add_ps(e0, o0), _mm256_add_ps(e1, o1), _mm256_add_ps(e2, o2), _mm256_add_ps(e3, o3)};
    for (int v = 0; v < 4; v++) {
        const long remaining = columns - 8 * v;
        if (remaining <= 0) break;
        store8(out + 8 * v, finish(sums[v], b, column_biases(column_bias, n0 + 8 * v, remaining), activation, low, high), remaining);
    }
}

/// The four blocks of a panel and a tile, `full` a constant at each call.
PG_AVX2 static inline __attribute__((always_inline)) void
panel_tile(const float *w, int m, int k, const float *source, long x_pitch, const int full, long columns, int row0,
           float *y, int n, int n0, const float *bias, const float *column_bias, int activation, __m256 low,
           __m256 high, long ahead, int prefetch) {
    if (m - row0 == 1) {
        single_row(w, k, source, x_pitch, full, columns, row0, y, n, n0, bias, column_bias, activation, low, high, ahead, prefetch);
        return;
    }
    // Columns 0-15 for rows 0-3 then 4-7, then columns 16-31. The first block brings x in and fetches ahead (its
    // 32 columns are two cache lines: the first block takes the first, the third the second).
    for (int half = 0; half < 2; half++) {
        const long remaining = columns - 16 * half;
        if (remaining <= 0) break;
        for (int quad = 0; quad < 2 && row0 + 4 * quad < m; quad++) {
            block4x16(w, m, k, source + 16 * half, x_pitch, full, remaining, row0, 4 * quad, y, n, n0 + 16 * half, bias,
                      column_bias, activation, low, high, ahead, prefetch && quad == 0);
        }
    }
}

PG_AVX2 void pg_panel_tile_avx2(const float *packed, int m, int k, const float *x, long x_pitch, long tile_stride, long ahead,
                                int prefetch, float *y, int n, int p, int n0, const float *bias, const float *column_bias,
                                int activation, float low_bound, float high_bound) {
    const __m256 low = _mm256_set1_ps(low_bound), high = _mm256_set1_ps(high_bound);
    const long columns = n - n0 < TILE ? n - n0 : TILE;
    const float *w = packed + (long)p * k * PANEL;
    const float *source = x + (long)(n0 / TILE) * tile_stride;
    const int row0 = p * PANEL;
    if (columns == TILE) {
        panel_tile(w, m, k, source, x_pitch, 1, columns, row0, y, n, n0, bias, column_bias, activation, low, high, ahead, prefetch);
    } else {
        panel_tile(w, m, k, source, x_pitch, 0, columns, row0, y, n, n0, bias, column_bias, activation, low, high, ahead, prefetch);
    }
}
#endif
