// Window operations on one plane (depthwise convolution of any size, max pooling) and the epilogue of products,
// as portable loops the compiler vectorises once per instruction set (isa_variants.h).
#include "isa_variants.h"

#include <float.h>
#include <string.h>

/// Rows and columns the windows reach, padding included.
static long reach_rows(const pg_window *w) { return (long)(w->out_height - 1) * w->stride_y + (long)(w->kernel_y - 1) * w->dilation_y + 1; }
static long reach_columns(const pg_window *w) { return (long)(w->out_width - 1) * w->stride_x + (long)(w->kernel_x - 1) * w->dilation_x + 1; }

long pg_padded_plane_size(const pg_window *w) { return reach_rows(w) * reach_columns(w); }

/// Copies the plane into `padded` (rows × columns of the windows' reach), `fill` outside the input.
static void pad_plane(const pg_window *w, const float *input, float *padded, long rows, long columns, float fill) {
    const long left = w->pad_left < columns ? w->pad_left : columns;
    long inside = w->width < columns - left ? w->width : columns - left;
    if (inside < 0) inside = 0;
    for (long r = 0; r < rows; r++) {
        float *out = padded + r * columns;
        long y = r - w->pad_top;
        if (y < 0 || y >= w->height) {
            for (long c = 0; c < columns; c++) out[c] = fill;
            continue;
        }
        for (long c = 0; c < left; c++) out[c] = fill;
        memcpy(out + left, input + y * w->width, (size_t)inside * sizeof(float));
        for (long c = left + inside; c < columns; c++) out[c] = fill;
    }
}

/// The plane the windows read: the input itself when they stay inside it, else a copy in `scratch` with
/// `fill` around it. Sets `pitch` to the floats per row of what it returns.
static const float *window_source(const pg_window *w, const float *input, float *scratch, float fill, long *pitch) {
    const long rows = reach_rows(w), columns = reach_columns(w);
    if (!w->pad_top && !w->pad_left && rows <= w->height && columns <= w->width) {
        *pitch = w->width;
        return input;
    }
    pad_plane(w, input, scratch, rows, columns, fill);
    *pitch = columns;
    return scratch;
}

/// A 3×3 filter over a padded plane, each output computed at once; `stride_x` is a constant at each call site.
static inline __attribute__((always_inline)) void depthwise3x3(const pg_window *w, const float *plane, long pitch,
                                                               const float *weights, float bias, float *output,
                                                               const int stride_x) {
    const float w0 = weights[0], w1 = weights[1], w2 = weights[2], w3 = weights[3], w4 = weights[4],
                w5 = weights[5], w6 = weights[6], w7 = weights[7], w8 = weights[8];
    const int ow = w->out_width;
    for (int oy = 0; oy < w->out_height; oy++) {
        const float *r0 = plane + (long)oy * w->stride_y * pitch, *r1 = r0 + pitch, *r2 = r1 + pitch;
        float *out = output + (long)oy * ow;
        for (int ox = 0; ox < ow; ox++) {
            const int x = stride_x * ox;
            out[ox] = bias + w0 * r0[x] + w1 * r0[x + 1] + w2 * r0[x + 2] + w3 * r1[x] + w4 * r1[x + 1]
                + w5 * r1[x + 2] + w6 * r2[x] + w7 * r2[x + 1] + w8 * r2[x + 2];
        }
    }
}

/// In depthwise_avx512.c and depthwise_avx2.c: any filter size at stride 1, a vector of a row's outputs in a
/// register across every tap.
void pg_depthwise_unit_stride_avx512(const pg_window *w, const float *plane, long pitch, const float *weights, float bias,
                                     float *output);
void pg_depthwise_unit_stride_avx2(const pg_window *w, const float *plane, long pitch, const float *weights, float bias,
                                   float *output);

PG_BODY void pg_depthwise_conv2d_body(const pg_window *w, const float *input, const float *weights, float bias,
                                      float *output, float *scratch) {
    long pitch;
    const float *plane = window_source(w, input, scratch, 0.0f, &pitch);
    const int ow = w->out_width;
    if (w->kernel_y == 3 && w->kernel_x == 3 && w->dilation_y == 1 && w->dilation_x == 1) {
        // The common 3×3 cases, with the column stride a constant so that the loop vectorises.
        if (w->stride_x == 1) { depthwise3x3(w, plane, pitch, weights, bias, output, 1); return; }
        if (w->stride_x == 2) { depthwise3x3(w, plane, pitch, weights, bias, output, 2); return; }
    }
    if (w->stride_y == 1 && w->stride_x == 1 && w->dilation_y == 1 && w->dilation_x == 1 && pg_isa() >= PG_ISA_AVX2) {
        // AVX-512 where its vectors of 16 are as full as AVX2's of 8 (rows of 14 or 28 columns); AVX2 where they are
        // not (7 columns: 16 lanes for 7, 8 for 7), which on Zen 4 is also the faster (0.19 -> 0.15 ms for 768
        // planes of 7×7 and a 7×7 filter).
        const int ow16 = (ow + 15) / 16 * 16, ow8 = (ow + 7) / 8 * 8;
        if (pg_isa() == PG_ISA_AVX512 && ow16 == ow8) {
            pg_depthwise_unit_stride_avx512(w, plane, pitch, weights, bias, output);
        } else {
            pg_depthwise_unit_stride_avx2(w, plane, pitch, weights, bias, output);
        }
        return;
    }
    for (int oy = 0; oy < w->out_height; oy++) {
        float *out = output + (long)oy * ow;
        for (int ox = 0; ox < ow; ox++) out[ox] = bias;
        for (int ky = 0; ky < w->kernel_y; ky++) {
            const float *row = plane + ((long)oy * w->stride_y + (long)ky * w->dilation_y) * pitch;
            for (int kx = 0; kx < w->kernel_x; kx++) {
                const float weight = weights[ky * w->kernel_x + kx];
                const float *source = row + (long)kx * w->dilation_x;
                const int sx = w->stride_x;
                if (sx == 1) {
                    // Contiguous (ConvNeXt's 7×7, EfficientNet's 5×5): vectorises.
                    for (int ox = 0; ox < ow; ox++) out[ox] += weight * source[ox];
                } else {
                    for (int ox = 0; ox < ow; ox++) out[ox] += weight * source[(long)ox * sx];
                }
            }
        }
    }
}

PG_ISA_VARIANTS_VOID(pg_depthwise_conv2d,
                     (const pg_window *w, const float *input, const float *weights, float bias, float *output, float *scratch),
                     (w, input, weights, bias, output, scratch))

PG_BODY void pg_max_pool2d_body(const pg_window *w, const float *input, float *output, float *scratch) {
    long pitch;
    const float *plane = window_source(w, input, scratch, -FLT_MAX, &pitch);
    const int ow = w->out_width, sx = w->stride_x;
    if (w->kernel_y == 2 && w->kernel_x == 2 && sx == 2 && w->dilation_y == 1 && w->dilation_x == 1) {
        for (int oy = 0; oy < w->out_height; oy++) {
            const float *r0 = plane + (long)oy * w->stride_y * pitch, *r1 = r0 + pitch;
            float *out = output + (long)oy * ow;
            for (int ox = 0; ox < ow; ox++) {
                float a = r0[2 * ox] > r0[2 * ox + 1] ? r0[2 * ox] : r0[2 * ox + 1];
                float b = r1[2 * ox] > r1[2 * ox + 1] ? r1[2 * ox] : r1[2 * ox + 1];
                out[ox] = a > b ? a : b;
            }
        }
        return;
    }
    for (int oy = 0; oy < w->out_height; oy++) {
        float *out = output + (long)oy * ow;
        for (int ox = 0; ox < ow; ox++) out[ox] = -FLT_MAX;
        for (int ky = 0; ky < w->kernel_y; ky++) {
            const float *row = plane + ((long)oy * w->stride_y + (long)ky * w->dilation_y) * pitch;
            for (int kx = 0; kx < w->kernel_x; kx++) {
                const float *source = row + (long)kx * w->dilation_x;
                for (int ox = 0; ox < ow; ox++) {
                    float v = source[(long)ox * sx];
                    out[ox] = v > out[ox] ? v : out[ox];
                }
            }
        }
    }
}

PG_ISA_VARIANTS_VOID(pg_max_pool2d, (const pg_window *w, const float *input, float *output, float *scratch),
                     (w, input, output, scratch))

PG_BODY void pg_bias_activation_body(float *values, long count, float bias, int activation, float low, float high) {
    switch (activation) {
    case PG_ACTIVATION_NONE:
        if (bias != 0.0f) for (long i = 0; i < count; i++) values[i] += bias;
        break;
    case PG_ACTIVATION_RELU:
        for (long i = 0; i < count; i++) { float v = values[i] + bias; values[i] = v > 0.0f ? v : 0.0f; }
        break;
    case PG_ACTIVATION_CLIP:
        for (long i = 0; i < count; i++) {
            float v = values[i] + bias;
            v = v < low ? low : v;
            values[i] = v > high ? high : v;
        }
        break;
    }
}
PG_ISA_VARIANTS_VOID(pg_bias_activation, (float *values, long count, float bias, int activation, float low, float high),
                     (values, count, bias, activation, low, high))
