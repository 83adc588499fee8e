// Depthwise 3×3 convolution at stride 2 with one column of padding on the left (MobileNetV2's four downsampling
// layers) on AVX2 with FMA: the twin of depthwise3x3_stride2_avx512.c, read straight from the input planes. The 8
// outputs from 8·q read input columns 16·q − 1 to 16·q + 15: the 16 from 16·q, two loads from the row's start, give
// the middle tap's columns (their evens) and the right tap's (their odds), one shuffle within lanes each, in the
// order [0 1 4 5 | 2 3 6 7]; the left tap's are the odds one column back, one permute in that order and a blend
// with the 8 before's (zero at the row's start). The sum is put back in order once, as it is stored. Only a row's
// last 16 columns need masked loads.
#include "depthwise3x3.h"

#if defined(__x86_64__)
#include "avx2_helpers.h"

/// The 8 floats of `row` from column `start`, zeros past `width`.
PG_AVX2 static inline __m256 load_until(const float *row, long start, long width) {
    if (start + 8 <= width) return _mm256_loadu_ps(row + start);
    return start < width ? _mm256_maskload_ps(row + start, lanes8(width - start)) : _mm256_setzero_ps();
}

PG_AVX2 void pg_depthwise3x3_stride2_avx2(const pg_window *w, int channels, const float *input, const float *weights,
                                          const float *bias, int activation, float low_bound, float high_bound, float *output) {
    const long width = w->width, height = w->height, in_plane = height * width;
    const int ow = w->out_width, oh = w->out_height;
    // Lane j of the odds in the order [0 1 4 5 | 2 3 6 7] holds column p(j); the left tap of output p(j) is odd
    // column p(j) − 1, in lane: for lanes 1 to 7, 0 5 2 1 4 3 6; lane 0 takes the 8 before's last, their lane 7.
    const __m256i back = _mm256_setr_epi32(7, 0, 5, 2, 1, 4, 3, 6);
    const __m256 low = _mm256_set1_ps(low_bound), high = _mm256_set1_ps(high_bound);
    for (int c = 0; c < channels; c++) {
        const float *plane = input + c * in_plane;
        float *out = output + (long)c * oh * ow;
        const float b = bias ? bias[c] : 0.0f;
        for (int oy = 0; oy < oh; oy++, out += ow) {
            // Each row of taps: its input row, and its weights (zero for a row outside the plane, which reads row 0).
            const float *rows[3];
            float k[9];
            for (int ky = 0; ky < 3; ky++) {
                const long y = (long)oy * w->stride_y - w->pad_top + ky;
                const int in = y >= 0 && y < height;
                rows[ky] = plane + (in ? y : 0) * width;
                for (int kx = 0; kx < 3; kx++) k[3 * ky + kx] = in ? weights[9L * c + 3 * ky + kx] : 0.0f;
            }
            __m256 previous[3] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
            for (int ox = 0; ox < ow; ox += 8) {
                const long start = 2L * ox;
                // One sum per row of taps, so that no multiply-add waits long for the one before.
                __m256 sums[3];
                for (int ky = 0; ky < 3; ky++) {
                    const __m256 first = load_until(rows[ky], start, width), second = load_until(rows[ky], start + 8, width);
                    const __m256 odd = _mm256_shuffle_ps(first, second, _MM_SHUFFLE(3, 1, 3, 1));
                    const __m256 even = _mm256_shuffle_ps(first, second, _MM_SHUFFLE(2, 0, 2, 0));
                    const __m256 turned = _mm256_permutevar8x32_ps(odd, back);
                    const __m256 left = _mm256_blend_ps(turned, previous[ky], 0x01);
                    __m256 sum = _mm256_mul_ps(_mm256_broadcast_ss(k + 3 * ky), left);
                    sum = _mm256_fmadd_ps(_mm256_broadcast_ss(k + 3 * ky + 1), even, sum);
                    sums[ky] = _mm256_fmadd_ps(_mm256_broadcast_ss(k + 3 * ky + 2), odd, sum);
                    previous[ky] = turned;
                }
                const __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(sums[0], _mm256_set1_ps(b)), sums[1]), sums[2]);
                // [0 1 4 5 | 2 3 6 7] as pairs (0 1), (4 5), (2 3), (6 7): pairs 0, 2, 1, 3 put them in order.
                const __m256 ordered = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(sum), _MM_SHUFFLE(3, 1, 2, 0)));
                store8(out + ox, activate8(ordered, activation, low, high), ow - ox);
            }
        }
    }
}
#endif
