// Depthwise convolution at stride 1 with any filter size (ConvNeXt's 7×7, EfficientNet's 5×5) on AVX-512: the
// outputs stay in registers across every tap, where the portable loop loads and stores a row once per tap (49 times
// for 7×7). Eight vectors of outputs at a time, each its own chain of multiply-adds, as on AVX2
// (depthwise_avx2.c): 2 rows × 4 vectors where a row has 64 columns left, else 8 rows × 1 vector (one vector's 49
// taps in a row wait on each other). Called by pg_depthwise_conv2d on CPUs with AVX-512F.
#include "inference_kernels.h"

#if defined(__x86_64__)
#include "avx512_helpers.h"

/// R rows × V vectors of outputs from row `oy` and column `ox`: `rows` of the R exist (the others repeat the last
/// one's work and are not stored); the last vector has the columns `last` marks, and reads no others.
#define DEPTHWISE_BLOCK(R, V)                                                                                          \
    __attribute__((target("avx512f"))) static inline __attribute__((always_inline)) void block##R##x##V(               \
        const float *plane, long pitch, const float *weights, int kh, int kw, float bias, int oy, int rows, int ox,    \
        __mmask16 last, float *output, long ow) {                                                                      \
        __m512 sums[R][V];                                                                                             \
        const float *in[R];                                                                                            \
        for (int r = 0; r < R; r++) {                                                                                  \
            in[r] = plane + (long)(oy + (r < rows ? r : rows - 1)) * pitch + ox;                                       \
            for (int v = 0; v < V; v++) sums[r][v] = _mm512_set1_ps(bias);                                             \
        }                                                                                                              \
        for (int ky = 0; ky < kh; ky++) {                                                                              \
            for (int kx = 0; kx < kw; kx++) {                                                                          \
                const __m512 weight = _mm512_set1_ps(weights[ky * kw + kx]);                                           \
                for (int r = 0; r < R; r++) {                                                                          \
                    const float *x = in[r] + (long)ky * pitch + kx;                                                    \
                    for (int v = 0; v < V; v++) {                                                                      \
                        const __m512 value = v < V - 1 ? _mm512_loadu_ps(x + 16 * v) : _mm512_maskz_loadu_ps(last, x + 16 * v); \
                        sums[r][v] = _mm512_fmadd_ps(weight, value, sums[r][v]);                                       \
                    }                                                                                                  \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        for (int r = 0; r < R && r < rows; r++) {                                                                      \
            float *out = output + (long)(oy + r) * ow + ox;                                                            \
            for (int v = 0; v < V; v++) {                                                                              \
                if (v < V - 1) _mm512_storeu_ps(out + 16 * v, sums[r][v]);                                             \
                else _mm512_mask_storeu_ps(out + 16 * v, last, sums[r][v]);                                            \
            }                                                                                                          \
        }                                                                                                              \
    }

DEPTHWISE_BLOCK(2, 4)
DEPTHWISE_BLOCK(8, 1)
#undef DEPTHWISE_BLOCK

__attribute__((target("avx512f")))
void pg_depthwise_unit_stride_avx512(const pg_window *w, const float *plane, long pitch, const float *weights, float bias,
                                     float *output) {
    const int ow = w->out_width, oh = w->out_height, kh = w->kernel_y, kw = w->kernel_x, chunks = ow / 64 * 64;
    for (int oy = 0; oy < oh; oy += 8) {
        const int rows = oh - oy < 8 ? oh - oy : 8;
        for (int ox = 0; ox < chunks; ox += 64) {
            for (int r = 0; r < rows; r += 2) {
                block2x4(plane, pitch, weights, kh, kw, bias, oy + r, rows - r < 2 ? rows - r : 2, ox, 0xFFFF, output, ow);
            }
        }
        for (int ox = chunks; ox < ow; ox += 16) block8x1(plane, pitch, weights, kh, kw, bias, oy, rows, ox, first_lanes(ow - ox), output, ow);
    }
}
#endif
