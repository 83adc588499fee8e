// Depthwise 3×3 convolution (MobileNet's and EfficientNet's), every channel of an image in one call: the kernel
// for the instruction set in use (depthwise3x3_avx512.c, depthwise3x3_avx2.c; at stride 2 with the usual padding,
// depthwise3x3_stride2_avx512.c and _avx2.c), or plain C on the portable path.
#include "depthwise3x3.h"

/// A 3×3 filter over one plane, reading zeros outside it, plus `bias` and the activation: the portable path's
/// answer where a caller asks it for the whole-image kernels (the executor itself takes pg_depthwise_conv2d there).
static void plane3x3(const pg_window *w, const float *plane, const float *k, float bias, int activation, float low,
                     float high, float *out) {
    for (int oy = 0; oy < w->out_height; oy++) {
        for (int ox = 0; ox < w->out_width; ox++) {
            float sum = bias;
            for (int ky = 0; ky < 3; ky++) {
                const long y = (long)oy * w->stride_y + ky - w->pad_top;
                if (y < 0 || y >= w->height) continue;
                for (int kx = 0; kx < 3; kx++) {
                    const long x = (long)ox * w->stride_x + kx - w->pad_left;
                    if (x >= 0 && x < w->width) sum += k[ky * 3 + kx] * plane[y * w->width + x];
                }
            }
            out[(long)oy * w->out_width + ox] = sum;
        }
    }
    pg_bias_activation(out, (long)w->out_height * w->out_width, 0.0f, activation, low, high);
}

static void portable3x3(const pg_window *w, int channels, const float *input, const float *weights, const float *bias,
                        int activation, float low, float high, float *output) {
    const long in_plane = (long)w->height * w->width, out_plane = (long)w->out_height * w->out_width;
    for (int c = 0; c < channels; c++) {
        plane3x3(w, input + c * in_plane, weights + 9L * c, bias ? bias[c] : 0.0f, activation, low, high, output + c * out_plane);
    }
}

long pg_depthwise3x3_scratch_size(const pg_window *w) {
    return padded_rows(w) * padded_pitch(w) * (w->stride_x == 2 ? 2 : 1);
}

void pg_depthwise3x3(const pg_window *w, int channels, const float *input, const float *weights, const float *bias,
                     int activation, float low_bound, float high_bound, float *output, float *scratch) {
#if defined(__x86_64__)
    switch (pg_isa()) {
    case PG_ISA_AVX512:
        if (w->stride_x == 2 && w->pad_left == 1) {
            pg_depthwise3x3_stride2_avx512(w, channels, input, weights, bias, activation, low_bound, high_bound, output);
        } else {
            pg_depthwise3x3_avx512(w, channels, input, weights, bias, activation, low_bound, high_bound, output, scratch);
        }
        return;
    case PG_ISA_AVX2:
        if (w->stride_x == 2 && w->pad_left == 1) {
            pg_depthwise3x3_stride2_avx2(w, channels, input, weights, bias, activation, low_bound, high_bound, output);
        } else {
            pg_depthwise3x3_avx2(w, channels, input, weights, bias, activation, low_bound, high_bound, output, scratch);
        }
        return;
    }
#endif
    (void)scratch;
    portable3x3(w, channels, input, weights, bias, activation, low_bound, high_bound, output);
}

void pg_depthwise3x3_flat(const pg_window *w, int channels, const float *input, const float *weights, const float *bias,
                          int activation, float low_bound, float high_bound, float *output) {
#if defined(__x86_64__)
    switch (pg_isa()) {
    case PG_ISA_AVX512:
        pg_depthwise3x3_flat_avx512(w, channels, input, weights, bias, activation, low_bound, high_bound, output);
        return;
    case PG_ISA_AVX2:
        pg_depthwise3x3_flat_avx2(w, channels, input, weights, bias, activation, low_bound, high_bound, output);
        return;
    }
#endif
    portable3x3(w, channels, input, weights, bias, activation, low_bound, high_bound, output);
}
