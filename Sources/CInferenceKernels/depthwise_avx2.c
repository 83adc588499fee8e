// Depthwise convolution at stride 1 with any filter size (ConvNeXt's 7×7, EfficientNet's 5×5) on AVX2 with FMA:
// eight outputs of a row stay in one register across every tap, where the portable loop loads and stores the row
// once per tap (49 times for 7×7). Called by pg_depthwise_conv2d on the AVX2 path.
#include "inference_kernels.h"

#if defined(__x86_64__)
#include "avx2_helpers.h"

PG_AVX2 void pg_depthwise_unit_stride_avx2(const pg_window *w, const float *plane, long pitch, const float *weights,
                                           float bias, float *output) {
    const int ow = w->out_width, kh = w->kernel_y, kw = w->kernel_x;
    for (int oy = 0; oy < w->out_height; oy++) {
        float *out = output + (long)oy * ow;
        for (int ox = 0; ox < ow; ox += 8) {
            // The last block of a row reads only its own lanes: past them may lie the end of the plane.
            const int full = ow - ox >= 8;
            const __m256i mask = lanes8(ow - ox);
            __m256 acc = _mm256_set1_ps(bias);
            for (int ky = 0; ky < kh; ky++) {
                const float *row = plane + (long)(oy + ky) * pitch + ox;
                const float *tap = weights + ky * kw;
                for (int kx = 0; kx < kw; kx++) {
                    const __m256 x = full ? _mm256_loadu_ps(row + kx) : _mm256_maskload_ps(row + kx, mask);
                    acc = _mm256_fmadd_ps(_mm256_set1_ps(tap[kx]), x, acc);
                }
            }
            store8(out + ox, acc, ow - ox);
        }
    }
}
#endif
