#include "inference_kernels.h"

#include <float.h>
#include <string.h>

#if defined(__x86_64__) && defined(__clang__)
#define PG_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define PG_CLONES
#endif

long pg_padded_plane_size(const pg_window *w) {
    long rows = (long)(w->out_height - 1) * w->stride_y + (long)(w->kernel_y - 1) * w->dilation_y + 1;
    long columns = (long)(w->out_width - 1) * w->stride_x + (long)(w->kernel_x - 1) * w->dilation_x + 1;
    return rows * columns;
}

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

PG_CLONES
void pg_depthwise_conv2d(const pg_window *w, const float *input, const float *weights, float bias,
                         float *output, float *scratch) {
    const long rows = (long)(w->out_height - 1) * w->stride_y + (long)(w->kernel_y - 1) * w->dilation_y + 1;
    const long columns = (long)(w->out_width - 1) * w->stride_x + (long)(w->kernel_x - 1) * w->dilation_x + 1;
    const float *plane = input;
    long pitch = w->width;
    int padded = w->pad_top || w->pad_left || rows > w->height || columns > w->width;
    if (padded) {
        pad_plane(w, input, scratch, rows, columns, 0.0f);
        plane = scratch;
        pitch = columns;
    }
    const int ow = w->out_width;
    if (w->kernel_y == 3 && w->kernel_x == 3 && w->dilation_y == 1 && w->dilation_x == 1 && w->stride_x == 1) {
        const float w0 = weights[0], w1 = weights[1], w2 = weights[2], w3 = weights[3], w4 = weights[4],
                    w5 = weights[5], w6 = weights[6], w7 = weights[7], w8 = weights[8];
        for (int oy = 0; oy < w->out_height; oy++) {
            const float *r0 = plane + (long)oy * w->stride_y * pitch, *r1 = r0 + pitch, *r2 = r1 + pitch;
            float *out = output + (long)oy * ow;
            for (int ox = 0; ox < ow; ox++) {
                out[ox] = bias + w0 * r0[ox] + w1 * r0[ox + 1] + w2 * r0[ox + 2] + w3 * r1[ox] + w4 * r1[ox + 1]
                    + w5 * r1[ox + 2] + w6 * r2[ox] + w7 * r2[ox + 1] + w8 * r2[ox + 2];
            }
        }
        return;
    }
    if (w->kernel_y == 3 && w->kernel_x == 3 && w->dilation_y == 1 && w->dilation_x == 1 && w->stride_x == 2) {
        const float w0 = weights[0], w1 = weights[1], w2 = weights[2], w3 = weights[3], w4 = weights[4],
                    w5 = weights[5], w6 = weights[6], w7 = weights[7], w8 = weights[8];
        for (int oy = 0; oy < w->out_height; oy++) {
            const float *r0 = plane + (long)oy * w->stride_y * pitch, *r1 = r0 + pitch, *r2 = r1 + pitch;
            float *out = output + (long)oy * ow;
            for (int ox = 0; ox < ow; ox++) {
                const int x = 2 * ox;
                out[ox] = bias + w0 * r0[x] + w1 * r0[x + 1] + w2 * r0[x + 2] + w3 * r1[x] + w4 * r1[x + 1]
                    + w5 * r1[x + 2] + w6 * r2[x] + w7 * r2[x + 1] + w8 * r2[x + 2];
            }
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
                for (int ox = 0; ox < ow; ox++) out[ox] += weight * source[(long)ox * sx];
            }
        }
    }
}

PG_CLONES
void pg_max_pool2d(const pg_window *w, const float *input, float *output, float *scratch) {
    const long rows = (long)(w->out_height - 1) * w->stride_y + (long)(w->kernel_y - 1) * w->dilation_y + 1;
    const long columns = (long)(w->out_width - 1) * w->stride_x + (long)(w->kernel_x - 1) * w->dilation_x + 1;
    const float *plane = input;
    long pitch = w->width;
    if (w->pad_top || w->pad_left || rows > w->height || columns > w->width) {
        pad_plane(w, input, scratch, rows, columns, -FLT_MAX);
        plane = scratch;
        pitch = columns;
    }
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

PG_CLONES
void pg_bias_activation(float *values, long count, float bias, int activation, float low, float high) {
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
