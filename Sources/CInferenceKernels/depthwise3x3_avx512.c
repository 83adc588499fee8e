// Depthwise 3×3 convolution (MobileNet's and EfficientNet's), every channel of an image in one call, on AVX-512.
// Each plane is first copied with its zero border into rows padded to whole vectors, so that every tap is a plain
// load and only a row's last vector is masked; at column stride 2 the copy also splits each row into its even and
// odd columns, which makes the three taps of a row contiguous again. The nine weights stay in registers, each
// row of taps has its own sum (three short dependency chains, not one of nine), and the bias and activation are
// applied as the outputs are stored. Small planes are what it is for: MobileNetV2's 7×7 and 14×14 layers have
// 384 to 960 channels of a few dozen outputs, where a per-plane call and a scalar tail cost more than the sums.
#include "inference_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

/// Floats per row of the padded copy: the windows' reach (halved at stride 2), in whole vectors, plus one vector
/// for the third tap's overhang.
static long padded_pitch(const pg_window *w) {
    const long reach = (long)(w->out_width - 1) * w->stride_x + 3;
    const long columns = w->stride_x == 2 ? (reach + 1) / 2 : reach;
    return (columns + 15) / 16 * 16 + 16;
}

static long padded_rows(const pg_window *w) { return (long)(w->out_height - 1) * w->stride_y + 3; }

long pg_depthwise3x3_scratch_size(const pg_window *w) {
    return padded_rows(w) * padded_pitch(w) * (w->stride_x == 2 ? 2 : 1);
}

/// The lanes [0, count) of a vector, count ≤ 16.
static inline __mmask16 first_lanes(long count) {
    return count >= 16 ? (__mmask16)0xFFFF : count <= 0 ? (__mmask16)0 : (__mmask16)((1u << count) - 1);
}

/// Copies `plane` with its zero border into `padded` (rows of `pitch` floats); at stride 2 each row as its even
/// columns then, `pitch` floats further, its odd ones, the two of them `2·pitch` apart from the next row's.
__attribute__((target("avx512f")))
static void pad(const pg_window *w, const float *plane, float *padded, long pitch) {
    const long rows = padded_rows(w), width = w->width, left = w->pad_left;
    const int split = w->stride_x == 2;
    const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odds = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    for (long r = 0; r < rows; r++) {
        const long y = r - w->pad_top;
        float *out = padded + r * pitch * (split ? 2 : 1);
        const int inside = y >= 0 && y < w->height;
        const float *row = plane + (inside ? y : 0) * width;
        // Padded column c is input column c - left; lanes outside the input load as zeros.
        if (!split) {
            for (long c = 0; c < pitch; c += 16) {
                const long start = c - left;
                const __mmask16 mask = inside ? first_lanes(width - start) & (__mmask16)~first_lanes(-start) : 0;
                _mm512_storeu_ps(out + c, _mm512_maskz_loadu_ps(mask, row + start));
            }
        } else {
            for (long c = 0; c < pitch; c += 16) {
                const long start = 2 * c - left;
                const __mmask16 head = inside ? first_lanes(width - start) & (__mmask16)~first_lanes(-start) : 0;
                const __mmask16 tail = inside ? first_lanes(width - start - 16) & (__mmask16)~first_lanes(-start - 16) : 0;
                const __m512 a = _mm512_maskz_loadu_ps(head, row + start);
                const __m512 b = _mm512_maskz_loadu_ps(tail, row + start + 16);
                _mm512_storeu_ps(out + c, _mm512_permutex2var_ps(a, evens, b));
                _mm512_storeu_ps(out + pitch + c, _mm512_permutex2var_ps(a, odds, b));
            }
        }
    }
}

__attribute__((target("avx512f")))
static inline __m512 finish(__m512 value, int activation, __m512 low, __m512 high) {
    if (activation == PG_ACTIVATION_RELU) return _mm512_max_ps(value, _mm512_setzero_ps());
    if (activation == PG_ACTIVATION_CLIP) return _mm512_min_ps(_mm512_max_ps(value, low), high);
    return value;
}

__attribute__((target("avx512f")))
void pg_depthwise3x3_avx512(const pg_window *w, int channels, const float *input, const float *weights,
                            const float *bias, int activation, float low_bound, float high_bound, float *output,
                            float *scratch) {
    const long pitch = padded_pitch(w), in_plane = (long)w->height * w->width;
    const int ow = w->out_width, oh = w->out_height, split = w->stride_x == 2;
    // Where a row's three taps start, in floats from the row: at stride 2 the first and third taps are the
    // even columns x and x+1, the second the odd column x.
    const long tap1 = split ? pitch : 1, tap2 = split ? 1 : 2;
    const long row_step = pitch * (split ? 2 : 1);
    const __m512 low = _mm512_set1_ps(low_bound), high = _mm512_set1_ps(high_bound);
    for (int c = 0; c < channels; c++) {
        pad(w, input + c * in_plane, scratch, pitch);
        const float *k = weights + 9L * c;
        const __m512 w0 = _mm512_set1_ps(k[0]), w1 = _mm512_set1_ps(k[1]), w2 = _mm512_set1_ps(k[2]);
        const __m512 w3 = _mm512_set1_ps(k[3]), w4 = _mm512_set1_ps(k[4]), w5 = _mm512_set1_ps(k[5]);
        const __m512 w6 = _mm512_set1_ps(k[6]), w7 = _mm512_set1_ps(k[7]), w8 = _mm512_set1_ps(k[8]);
        const __m512 b = _mm512_set1_ps(bias ? bias[c] : 0.0f);
        float *plane = output + (long)c * oh * ow;
        for (int oy = 0; oy < oh; oy++) {
            const float *r0 = scratch + (long)oy * w->stride_y * row_step, *r1 = r0 + row_step, *r2 = r1 + row_step;
            float *out = plane + (long)oy * ow;
            for (int ox = 0; ox < ow; ox += 16) {
                __m512 s0 = _mm512_fmadd_ps(w0, _mm512_loadu_ps(r0 + ox), b);
                __m512 s1 = _mm512_mul_ps(w3, _mm512_loadu_ps(r1 + ox));
                __m512 s2 = _mm512_mul_ps(w6, _mm512_loadu_ps(r2 + ox));
                s0 = _mm512_fmadd_ps(w1, _mm512_loadu_ps(r0 + ox + tap1), s0);
                s1 = _mm512_fmadd_ps(w4, _mm512_loadu_ps(r1 + ox + tap1), s1);
                s2 = _mm512_fmadd_ps(w7, _mm512_loadu_ps(r2 + ox + tap1), s2);
                s0 = _mm512_fmadd_ps(w2, _mm512_loadu_ps(r0 + ox + tap2), s0);
                s1 = _mm512_fmadd_ps(w5, _mm512_loadu_ps(r1 + ox + tap2), s1);
                s2 = _mm512_fmadd_ps(w8, _mm512_loadu_ps(r2 + ox + tap2), s2);
                const __m512 sum = _mm512_add_ps(_mm512_add_ps(s0, s1), s2);
                _mm512_mask_storeu_ps(out + ox, first_lanes(ow - ox), finish(sum, activation, low, high));
            }
        }
    }
}
#else
long pg_depthwise3x3_scratch_size(const pg_window *w) { (void)w; return 0; }
void pg_depthwise3x3_avx512(const pg_window *w, int channels, const float *input, const float *weights,
                            const float *bias, int activation, float low_bound, float high_bound, float *output,
                            float *scratch) {
    (void)w; (void)channels; (void)input; (void)weights; (void)bias; (void)activation; (void)low_bound;
    (void)high_bound; (void)output; (void)scratch;
}
#endif
