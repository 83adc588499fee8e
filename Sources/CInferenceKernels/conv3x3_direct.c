// A full 3×3 convolution of few input channels, computed directly: the stem of an image classifier (RGB in, 32
// filters at stride 2 for MobileNetV2), where im2col writes and rereads 27 rows as long as the output plane to
// feed a product only 27 deep. The executor takes it on the AVX2 path (on AVX-512, im2col and the packed product
// are faster still). Each output row is read from padded copies of the input planes (the depthwise kernels' copy,
// split into even and odd columns at stride 2): 16 outputs of 4 filters at a time, eight sums, each of the 27
// taps one load per 8 outputs and one broadcast weight per filter. MobileNetV2's stem alone, warm: 0.30 ms (0.37
// with 24 outputs, whose twelve sums spill; 0.35-0.37 with 8 filters of 8). Plain loops on the portable path.
#include "depthwise3x3.h"

#if defined(__x86_64__)
#include "avx2_helpers.h"

/// Output columns and filters per block: 2 vectors × 4 filters, eight sums in registers.
enum { BLOCK_VECTORS = 2, BLOCK_FILTERS = 4, MAX_TAPS = 9 * PG_CONV3X3_DIRECT_MAX_CHANNELS };

PG_AVX2 static void conv3x3_direct_avx2(const pg_window *w, int channels, int filters, const float *input,
                                        const float *weights, const float *bias, int activation, float low_bound,
                                        float high_bound, float *output, float *scratch) {
    const long pitch = padded_pitch(w), in_plane = (long)w->height * w->width;
    const int split = w->stride_x == 2, taps = 9 * channels;
    const long row_step = pitch * (split ? 2 : 1), copy = padded_rows(w) * row_step;
    for (int c = 0; c < channels; c++) pg_pad_plane_avx2(w, input + c * in_plane, scratch + c * copy, pitch);
    // Where each tap (channel, ky, kx) starts in the copies: at stride 2 a row's taps 0 and 2 are its even columns
    // x and x+1, tap 1 its odd column x.
    long offsets[MAX_TAPS];
    for (int tap = 0; tap < taps; tap++) {
        const int kx = tap % 3;
        offsets[tap] = tap / 9 * copy + tap % 9 / 3 * row_step + (kx == 0 ? 0 : kx == 1 ? (split ? pitch : 1) : (split ? 1 : 2));
    }
    const int oh = w->out_height, ow = w->out_width;
    const long out_plane = (long)oh * ow;
    const __m256 low = _mm256_set1_ps(low_bound), high = _mm256_set1_ps(high_bound);
    for (int oy = 0; oy < oh; oy++) {
        const float *row = scratch + (long)oy * w->stride_y * row_step;
        for (int ox = 0; ox < ow; ox += 8 * BLOCK_VECTORS) {
            for (int f = 0; f < filters; f += BLOCK_FILTERS) {
                const float *k = weights + (long)f * taps;
                __m256 sums[BLOCK_FILTERS][BLOCK_VECTORS];
                for (int i = 0; i < BLOCK_FILTERS; i++) {
                    for (int v = 0; v < BLOCK_VECTORS; v++) sums[i][v] = _mm256_set1_ps(bias ? bias[f + i] : 0.0f);
                }
                for (int tap = 0; tap < taps; tap++) {
                    const float *at = row + offsets[tap] + ox;
                    __m256 x[BLOCK_VECTORS];
                    for (int v = 0; v < BLOCK_VECTORS; v++) x[v] = _mm256_loadu_ps(at + 8 * v);
                    for (int i = 0; i < BLOCK_FILTERS; i++) {
                        const __m256 weight = _mm256_broadcast_ss(k + (long)i * taps + tap);
                        for (int v = 0; v < BLOCK_VECTORS; v++) sums[i][v] = _mm256_fmadd_ps(weight, x[v], sums[i][v]);
                    }
                }
                for (int i = 0; i < BLOCK_FILTERS; i++) {
                    float *out = output + (long)(f + i) * out_plane + (long)oy * ow + ox;
                    for (int v = 0; v < BLOCK_VECTORS; v++) {
                        store8(out + 8 * v, activate8(sums[i][v], activation, low, high), ow - ox - 8 * v);
                    }
                }
            }
        }
    }
}
#endif

long pg_conv3x3_direct_scratch_size(const pg_window *w, int channels) {
    // A vector and more past the last copy: the last block's loads reach past its row, into lanes never stored.
    return channels * padded_rows(w) * padded_pitch(w) * (w->stride_x == 2 ? 2 : 1) + 64;
}

void pg_conv3x3_direct(const pg_window *w, int channels, int filters, const float *input, const float *weights,
                       const float *bias, int activation, float low_bound, float high_bound, float *output,
                       float *scratch) {
#if defined(__x86_64__)
    if (pg_isa() >= PG_ISA_AVX2) {
        conv3x3_direct_avx2(w, channels, filters, input, weights, bias, activation, low_bound, high_bound, output, scratch);
        return;
    }
#endif
    (void)scratch;
    const long in_plane = (long)w->height * w->width;
    for (int f = 0; f < filters; f++) {
        for (int oy = 0; oy < w->out_height; oy++) {
            for (int ox = 0; ox < w->out_width; ox++) {
                float sum = bias ? bias[f] : 0.0f;
                for (int tap = 0; tap < 9 * channels; tap++) {
                    const int y = oy * w->stride_y + tap % 9 / 3 - w->pad_top, x = ox * w->stride_x + tap % 3 - w->pad_left;
                    if (y >= 0 && y < w->height && x >= 0 && x < w->width) {
                        sum += weights[(long)f * 9 * channels + tap] * input[tap / 9 * in_plane + (long)y * w->width + x];
                    }
                }
                if (activation == PG_ACTIVATION_RELU) sum = sum > 0 ? sum : 0;
                if (activation == PG_ACTIVATION_CLIP) sum = sum < low_bound ? low_bound : sum > high_bound ? high_bound : sum;
                output[(long)f * w->out_height * w->out_width + (long)oy * w->out_width + ox] = sum;
            }
        }
    }
}
