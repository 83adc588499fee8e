// A block of the packed product on AVX2 that takes all of k in one loop: R rows of a panel against V vectors of 8
// columns, R × V sums in registers (12 or fewer, so that with V loads and a broadcast they fit the sixteen vector
// registers). What the shallow products and the narrow last tiles use (packed_gemm_shallow_avx2.c,
// packed_gemm_narrow_avx2.c). Private to CInferenceKernels; x86-64 only.
#ifndef PLANTGUIDE_AVX2_BLOCK_H
#define PLANTGUIDE_AVX2_BLOCK_H

#include "avx2_helpers.h"
#include "packed_gemm.h"

/// Steps of k a block's loop takes at a time, fully unrolled, with one decision about fetching ahead for all of
/// them: deciding it at every step cost more than the fetches save where x is already in cache (a 1×1 convolution
/// from 16 channels at 60 GFLOPS instead of 72).
enum { BLOCK_UNROLL = 4 };

/// Where a block's sums go and how they are finished: `rows` rows (at most R) of y from `out`, `n` floats apart,
/// `columns` columns (the last vector masked where fewer than V × 8); the rows' biases from `bias` are in the sums from
/// their start, the columns' from `column_bias` are added as they are stored (none where NULL); then clamped to
/// [bounds[0], bounds[1]]. The bounds are read from memory once k is done: in registers they would take two of the
/// sixteen a 6 × 2 block needs, and its sums would spill to the stack (a shallow product ran at 80 GFLOPS, not 97).
typedef struct {
    float *out;
    long n;
    int rows, columns;
    const float *bias, *column_bias, *bounds;
} pg_block_output;

/// Defines pg_block_RxV(w, k, source, x_pitch, fetch, output): rows of the panel from `w` against V vectors of x from
/// `source` (rows `x_pitch` apart, each readable for V × 8 floats), over all `k` steps. Where `fetch` is not NULL,
/// the block fetches the same k rows from there (the next tile), two cache lines a row.
#define PG_AVX2_BLOCK(R, V)                                                                                             \
    PG_AVX2 static inline __attribute__((always_inline)) void pg_block_##R##x##V(                                       \
        const float *w, int k, const float *source, long x_pitch, const float *fetch, const pg_block_output o) {       \
        __m256 sums[R][V];                                                                                              \
        for (int r = 0; r < R; r++) {                                                                                   \
            const __m256 start = o.bias && r < o.rows ? _mm256_set1_ps(o.bias[r]) : _mm256_setzero_ps();               \
            for (int v = 0; v < V; v++) sums[r][v] = start;                                                             \
        }                                                                                                               \
        int kk = 0;                                                                                                     \
        for (; kk + BLOCK_UNROLL <= k; kk += BLOCK_UNROLL) {                                                            \
            if (fetch) {                                                                                                \
                for (int u = 0; u < BLOCK_UNROLL; u++) {                                                                \
                    _mm_prefetch((const char *)(fetch + (kk + u) * x_pitch), _MM_HINT_T0);                              \
                    _mm_prefetch((const char *)(fetch + (kk + u) * x_pitch + 16), _MM_HINT_T0);                         \
                }                                                                                                       \
            }                                                                                                           \
            for (int u = 0; u < BLOCK_UNROLL; u++) PG_AVX2_BLOCK_STEP(R, V, kk + u);                                    \
        }                                                                                                               \
        for (; kk < k; kk++) PG_AVX2_BLOCK_STEP(R, V, kk);                                                              \
        const __m256 low = _mm256_broadcast_ss(o.bounds), high = _mm256_broadcast_ss(o.bounds + 1);                    \
        for (int v = 0; v < V; v++) {                                                                                   \
            const long count = o.columns - 8 * v;                                                                       \
            const __m256 column = o.column_bias ? load8(o.column_bias + 8 * v, count) : _mm256_setzero_ps();           \
            for (int r = 0; r < R && r < o.rows; r++) {                                                                 \
                const __m256 value = _mm256_min_ps(high, _mm256_max_ps(low, _mm256_add_ps(sums[r][v], column)));        \
                if (count >= 8) _mm256_storeu_ps(o.out + r * o.n + 8 * v, value);                                       \
                else store8(o.out + r * o.n + 8 * v, value, count);                                                     \
            }                                                                                                           \
        }                                                                                                               \
    }

/// One step `kk` of a block: V vectors of x, each row's weight broadcast, R × V multiply-adds.
#define PG_AVX2_BLOCK_STEP(R, V, kk)                                                                                    \
    do {                                                                                                                \
        __m256 xs[V];                                                                                                   \
        for (int v = 0; v < V; v++) xs[v] = _mm256_loadu_ps(source + (long)(kk) * x_pitch + 8 * v);                     \
        for (int r = 0; r < R; r++) {                                                                                   \
            const __m256 weight = _mm256_broadcast_ss(w + (long)(kk) * PANEL + r);                                      \
            for (int v = 0; v < V; v++) sums[r][v] = _mm256_fmadd_ps(weight, xs[v], sums[r][v]);                        \
        }                                                                                                               \
    } while (0)

/// The activation as the bounds a block clamps to: ±infinity for none, 0 and +infinity for Relu, Clip's own.
static inline void pg_activation_bounds(int activation, float low, float high, float bounds[2]) {
    const float infinity = __builtin_inff();
    bounds[0] = activation == PG_ACTIVATION_NONE ? -infinity : activation == PG_ACTIVATION_RELU ? 0.0f : low;
    bounds[1] = activation == PG_ACTIVATION_CLIP ? high : infinity;
}

#endif
