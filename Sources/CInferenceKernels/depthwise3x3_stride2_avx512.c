// Depthwise 3×3 convolution at stride 2 with one column of padding on the left (MobileNetV2's four downsampling
// layers) on AVX-512, read straight from the input planes, without the padded copy of depthwise3x3_avx512.c. The 16
// outputs from 16·q read input columns 32·q − 1 to 32·q + 31: the 32 from 32·q, two aligned loads from the row's
// start, give the middle tap's columns (their evens) and the right tap's (their odds), one two-source permute each;
// the left tap's are the odds one lane on, the first from the 32 before (zero at the row's start), one permute more.
// Only a row's last 32 columns need masked loads. The copy cost more than the convolution on small planes
// (MobileNetV2's 576 channels of 14×14: 0.13 ms in the model, onnxruntime's 0.02) and, 72 KB a plane of 112×112, did
// not stay in L1 (0.50 ms, onnxruntime's 0.33); loading from each output's first column, masked at both ends of every
// row, was no faster (masked loads that start before the row cost twice a plain one here).
#include "depthwise3x3.h"

#if defined(__x86_64__)
#include "avx512_helpers.h"

/// The 16 floats of `row` from column `start`, zeros past `width`.
__attribute__((target("avx512f")))
static inline __m512 load_until(const float *row, long start, long width) {
    if (start + 16 <= width) return _mm512_loadu_ps(row + start);
    return start < width ? _mm512_maskz_loadu_ps(first_lanes(width - start), row + start) : _mm512_setzero_ps();
}

__attribute__((target("avx512f")))
void pg_depthwise3x3_stride2_avx512(const pg_window *w, int channels, const float *input, const float *weights,
                                    const float *bias, int activation, float low_bound, float high_bound, float *output) {
    const long width = w->width, height = w->height, in_plane = height * width;
    const int ow = w->out_width, oh = w->out_height;
    const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odds = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    // The last lane of the first vector, then the first 15 of the second.
    const __m512i on = _mm512_setr_epi32(15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
    const __m512 low = _mm512_set1_ps(low_bound), high = _mm512_set1_ps(high_bound), zero = _mm512_setzero_ps();
    for (int c = 0; c < channels; c++) {
        const float *plane = input + c * in_plane, *k = weights + 9L * c;
        const __m512 b = _mm512_set1_ps(bias ? bias[c] : 0.0f);
        float *out = output + (long)c * oh * ow;
        for (int oy = 0; oy < oh; oy++, out += ow) {
            // Each row of taps: its input row, and its weights (zero for a row outside the plane, which reads row 0).
            const float *rows[3];
            __m512 taps[9];
            for (int ky = 0; ky < 3; ky++) {
                const long y = (long)oy * w->stride_y - w->pad_top + ky;
                const int in = y >= 0 && y < height;
                rows[ky] = plane + (in ? y : 0) * width;
                for (int kx = 0; kx < 3; kx++) taps[3 * ky + kx] = in ? _mm512_set1_ps(k[3 * ky + kx]) : zero;
            }
            __m512 previous[3] = {zero, zero, zero};
            for (int ox = 0; ox < ow; ox += 16) {
                const long start = 2L * ox;
                // One sum per row of taps, so that no multiply-add waits long for the one before.
                __m512 sums[3];
                for (int ky = 0; ky < 3; ky++) {
                    const __m512 first = load_until(rows[ky], start, width), second = load_until(rows[ky], start + 16, width);
                    const __m512 odd = _mm512_permutex2var_ps(first, odds, second);
                    __m512 sum = _mm512_mul_ps(taps[3 * ky], _mm512_permutex2var_ps(previous[ky], on, odd));
                    sum = _mm512_fmadd_ps(taps[3 * ky + 1], _mm512_permutex2var_ps(first, evens, second), sum);
                    sums[ky] = _mm512_fmadd_ps(taps[3 * ky + 2], odd, sum);
                    previous[ky] = odd;
                }
                const __m512 sum = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(sums[0], b), sums[1]), sums[2]);
                _mm512_mask_storeu_ps(out + ox, first_lanes(ow - ox), activate(sum, activation, low, high));
            }
        }
    }
}
#endif
