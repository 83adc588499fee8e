// Depthwise convolution at stride 1 with any filter size (ConvNeXt's 7×7, EfficientNet's 5×5) on AVX-512:
// sixteen outputs of a row stay in one register across every tap, where the portable loop loads and stores the
// row once per tap (49 times for 7×7). Called by pg_depthwise_conv2d on CPUs with AVX-512F.
#include "inference_kernels.h"

#if defined(__x86_64__)
#include "avx512_helpers.h"

__attribute__((target("avx512f")))
void pg_depthwise_unit_stride_avx512(const pg_window *w, const float *plane, long pitch, const float *weights, float bias,
                                     float *output) {
    const int ow = w->out_width, kh = w->kernel_y, kw = w->kernel_x;
    for (int oy = 0; oy < w->out_height; oy++) {
        float *out = output + (long)oy * ow;
        for (int ox = 0; ox < ow; ox += 16) {
            const __mmask16 mask = first_lanes(ow - ox);
            __m512 acc = _mm512_set1_ps(bias);
            for (int ky = 0; ky < kh; ky++) {
                const float *row = plane + (long)(oy + ky) * pitch + ox;
                const float *tap = weights + ky * kw;
                for (int kx = 0; kx < kw; kx++) {
                    acc = _mm512_fmadd_ps(_mm512_set1_ps(tap[kx]), _mm512_maskz_loadu_ps(mask, row + kx), acc);
                }
            }
            _mm512_mask_storeu_ps(out + ox, mask, acc);
        }
    }
}
#endif
