// Depthwise convolution at stride 1 with any filter size (ConvNeXt's 7×7, EfficientNet's 5×5) on AVX2 with FMA:
// the outputs of a row stay in registers across every tap, where the portable loop loads and stores the row once
// per tap (49 times for 7×7). Four vectors of a row at a time, each its own chain of multiply-adds, so that the
// 4-cycle latency of each does not bound them (one vector's 49 taps in a row would wait on each other). Called by
// pg_depthwise_conv2d on the AVX2 path.
#include "inference_kernels.h"

#if defined(__x86_64__)
#include "avx2_helpers.h"

/// Outputs `ox` to `ox + 32` of row `oy`, all of them inside the row.
PG_AVX2 static inline void four_vectors(const float *plane, long pitch, const float *weights, int kh, int kw, float bias,
                                        int oy, int ox, float *out) {
    __m256 a0 = _mm256_set1_ps(bias), a1 = a0, a2 = a0, a3 = a0;
    for (int ky = 0; ky < kh; ky++) {
        const float *row = plane + (long)(oy + ky) * pitch + ox;
        const float *tap = weights + ky * kw;
        for (int kx = 0; kx < kw; kx++) {
            const __m256 w = _mm256_broadcast_ss(tap + kx);
            a0 = _mm256_fmadd_ps(w, _mm256_loadu_ps(row + kx), a0);
            a1 = _mm256_fmadd_ps(w, _mm256_loadu_ps(row + kx + 8), a1);
            a2 = _mm256_fmadd_ps(w, _mm256_loadu_ps(row + kx + 16), a2);
            a3 = _mm256_fmadd_ps(w, _mm256_loadu_ps(row + kx + 24), a3);
        }
    }
    _mm256_storeu_ps(out + ox, a0);
    _mm256_storeu_ps(out + ox + 8, a1);
    _mm256_storeu_ps(out + ox + 16, a2);
    _mm256_storeu_ps(out + ox + 24, a3);
}

PG_AVX2 void pg_depthwise_unit_stride_avx2(const pg_window *w, const float *plane, long pitch, const float *weights,
                                           float bias, float *output) {
    const int ow = w->out_width, kh = w->kernel_y, kw = w->kernel_x;
    for (int oy = 0; oy < w->out_height; oy++) {
        float *out = output + (long)oy * ow;
        int ox = 0;
        for (; ox + 32 <= ow; ox += 32) four_vectors(plane, pitch, weights, kh, kw, bias, oy, ox, out);
        for (; ox < ow; ox += 8) {
            // The last vectors of a row read only their own lanes: past them may lie the end of the plane.
            const int full = ow - ox >= 8;
            const __m256i mask = lanes8(ow - ox);
            __m256 acc = _mm256_set1_ps(bias);
            for (int ky = 0; ky < kh; ky++) {
                const float *row = plane + (long)(oy + ky) * pitch + ox;
                const float *tap = weights + ky * kw;
                for (int kx = 0; kx < kw; kx++) {
                    const __m256 x = full ? _mm256_loadu_ps(row + kx) : _mm256_maskload_ps(row + kx, mask);
                    acc = _mm256_fmadd_ps(_mm256_broadcast_ss(tap + kx), x, acc);
                }
            }
            store8(out + ox, acc, ow - ox);
        }
    }
}
#endif
