// Depthwise convolution at stride 1 with any filter size (ConvNeXt's 7×7, EfficientNet's 5×5) on AVX2 with FMA:
// the outputs stay in registers across every tap, where the portable loop loads and stores a row once per tap (49
// times for 7×7). Eight vectors of outputs at a time, each its own chain of multiply-adds, so that the 4-cycle
// latency of each does not bound them: 2 rows × 4 vectors where a row has 32 columns left, else 8 rows × 1 vector.
// (One vector's 49 taps in a row wait on each other: ConvNeXt-tiny's rows of 28, 14 and 7 columns, all single
// vectors, ran at an eighth of the multipliers' pace, and its depthwise layers took 111 ms at batch 8 where
// AVX-512's took 86.) Called by pg_depthwise_conv2d on the AVX2 path.
#include "inference_kernels.h"

#if defined(__x86_64__)
#include "avx2_helpers.h"

/// R rows × V vectors of outputs from row `oy` and column `ox`: `rows` of the R exist (the others repeat the last
/// one's work and are not stored); the last vector has `count` columns (8 where `full`), and reads no further.
#define DEPTHWISE_BLOCK(R, V)                                                                                          \
    PG_AVX2 static inline __attribute__((always_inline)) void block##R##x##V(                                          \
        const float *plane, long pitch, const float *weights, int kh, int kw, float bias, int oy, int rows, int ox,    \
        const int full, long count, float *output, long ow) {                                                          \
        const __m256i mask = lanes8(count);                                                                            \
        __m256 sums[R][V];                                                                                             \
        const float *in[R];                                                                                            \
        for (int r = 0; r < R; r++) {                                                                                  \
            in[r] = plane + (long)(oy + (r < rows ? r : rows - 1)) * pitch + ox;                                       \
            for (int v = 0; v < V; v++) sums[r][v] = _mm256_set1_ps(bias);                                             \
        }                                                                                                              \
        for (int ky = 0; ky < kh; ky++) {                                                                              \
            for (int kx = 0; kx < kw; kx++) {                                                                          \
                const __m256 weight = _mm256_broadcast_ss(weights + ky * kw + kx);                                     \
                for (int r = 0; r < R; r++) {                                                                          \
                    const float *x = in[r] + (long)ky * pitch + kx;                                                    \
                    for (int v = 0; v < V; v++) {                                                                      \
                        const __m256 value = full || v < V - 1 ? _mm256_loadu_ps(x + 8 * v) : _mm256_maskload_ps(x + 8 * v, mask); \
                        sums[r][v] = _mm256_fmadd_ps(weight, value, sums[r][v]);                                       \
                    }                                                                                                  \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        for (int r = 0; r < R && r < rows; r++) {                                                                      \
            float *out = output + (long)(oy + r) * ow + ox;                                                            \
            for (int v = 0; v < V; v++) {                                                                              \
                if (full || v < V - 1) _mm256_storeu_ps(out + 8 * v, sums[r][v]);                                      \
                else store8(out + 8 * v, sums[r][v], count);                                                           \
            }                                                                                                          \
        }                                                                                                              \
    }

DEPTHWISE_BLOCK(2, 4)
DEPTHWISE_BLOCK(8, 1)
#undef DEPTHWISE_BLOCK

PG_AVX2 void pg_depthwise_unit_stride_avx2(const pg_window *w, const float *plane, long pitch, const float *weights,
                                           float bias, float *output) {
    const int ow = w->out_width, oh = w->out_height, kh = w->kernel_y, kw = w->kernel_x, chunks = ow / 32 * 32;
    for (int oy = 0; oy < oh; oy += 8) {
        const int rows = oh - oy < 8 ? oh - oy : 8;
        for (int ox = 0; ox < chunks; ox += 32) {
            for (int r = 0; r < rows; r += 2) {
                block2x4(plane, pitch, weights, kh, kw, bias, oy + r, rows - r < 2 ? rows - r : 2, ox, 1, 8, output, ow);
            }
        }
        for (int ox = chunks; ox < ow; ox += 8) {
            if (ow - ox >= 8) block8x1(plane, pitch, weights, kh, kw, bias, oy, rows, ox, 1, 8, output, ow);
            else block8x1(plane, pitch, weights, kh, kw, bias, oy, rows, ox, 0, ow - ox, output, ow);
        }
    }
}
#endif
