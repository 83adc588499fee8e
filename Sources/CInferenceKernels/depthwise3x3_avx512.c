// Depthwise 3×3 convolution (MobileNet's and EfficientNet's), every channel of an image in one call, on AVX-512.
// Each plane is first copied with its zero border into rows padded to whole vectors; at column stride 2 the copy
// also splits each row into its even and odd columns, which makes a row's three taps two aligned vectors and one
// shifted by a lane. Each row's vectors are loaded once, aligned, and the taps one and two columns on are made
// from neighbouring vectors (valignd), where unaligned loads would each touch two cache lines. The nine weights
// stay in registers, each row of taps has its own sum (three short dependency chains, not one of nine), and the
// bias and activation are applied as the outputs are stored. Planes narrower than a vector whose output rows are
// as wide as the input's (MobileNetV2's 384 to 960 channels of 7×7 or 14×14) take pg_depthwise3x3_flat_avx512:
// each plane read as one long row, no copy, a mask per tap.
#include "depthwise3x3.h"

#if defined(__x86_64__)
#include "avx512_helpers.h"

/// The 16 values of `row` from column `start` on, zero outside [0, width) and everywhere when the row is not
/// `inside` the plane; on a `large` plane, a plain load where all of them are inside, which the hardware
/// prefetcher follows (on small ones, what the test costs is more than it saves).
__attribute__((target("avx512f")))
static inline __m512 load_row(const float *row, long start, long width, int inside, int large) {
    if (large && inside && start >= 0 && start + 16 <= width) return _mm512_loadu_ps(row + start);
    const __mmask16 mask = inside ? first_lanes(width - start) & (__mmask16)~first_lanes(-start) : 0;
    return _mm512_maskz_loadu_ps(mask, row + start);
}

/// Copies `plane` with its zero border into `padded` (rows of `pitch` floats); at stride 2 each row as its even
/// columns then, `pitch` floats further, its odd ones, the two of them `2·pitch` apart from the next row's.
__attribute__((target("avx512f")))
static void pad(const pg_window *w, const float *plane, float *padded, long pitch) {
    const long rows = padded_rows(w), columns = padded_columns(w), width = w->width, left = w->pad_left;
    const int split = w->stride_x == 2, large = (long)w->height * width >= LARGE_PLANE;
    const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odds = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    for (long r = 0; r < rows; r++) {
        const long y = r - w->pad_top;
        float *out = padded + r * pitch * (split ? 2 : 1);
        const int inside = y >= 0 && y < w->height;
        const float *row = plane + (inside ? y : 0) * width;
        // The input row AHEAD_ROWS on, fetched ahead: a large plane the layer before just wrote is often out of
        // L2 by now, and masked loads do not set the hardware prefetcher going. (A small one is still in cache.)
        if (large && y + AHEAD_ROWS >= 0 && y + AHEAD_ROWS < w->height) {
            const float *ahead = plane + (y + AHEAD_ROWS) * width;
            for (long c = 0; c < width; c += 16) _mm_prefetch((const char *)(ahead + c), _MM_HINT_T0);
        }
        // Padded column c is input column c - left; lanes outside the input load as zeros.
        if (!split) {
            for (long c = 0; c < columns; c += 16) {
                _mm512_storeu_ps(out + c, load_row(row, c - left, width, inside, large));
            }
        } else {
            for (long c = 0; c < columns; c += 16) {
                const __m512 a = load_row(row, 2 * c - left, width, inside, large);
                const __m512 b = load_row(row, 2 * c - left + 16, width, inside, large);
                _mm512_storeu_ps(out + c, _mm512_permutex2var_ps(a, evens, b));
                _mm512_storeu_ps(out + pitch + c, _mm512_permutex2var_ps(a, odds, b));
            }
        }
    }
}

/// The vector `shift` lanes on from `current`, continuing into `following`.
#define next(current, following, shift) \
    _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(following), _mm512_castps_si512(current), shift))

__attribute__((target("avx512f")))
void pg_depthwise3x3_avx512(const pg_window *w, int channels, const float *input, const float *weights,
                            const float *bias, int activation, float low_bound, float high_bound, float *output,
                            float *scratch) {
    const long pitch = padded_pitch(w), in_plane = (long)w->height * w->width;
    const int ow = w->out_width, oh = w->out_height, split = w->stride_x == 2;
    // At stride 2 a row's first and third taps are its even columns x and x+1, the second its odd column x.
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
            __m512 a0 = _mm512_load_ps(r0), a1 = _mm512_load_ps(r1), a2 = _mm512_load_ps(r2);
            for (int ox = 0; ox < ow; ox += 16) {
                const __m512 n0 = _mm512_load_ps(r0 + ox + 16), n1 = _mm512_load_ps(r1 + ox + 16), n2 = _mm512_load_ps(r2 + ox + 16);
                __m512 s0, s1, s2;
                if (split) {
                    s0 = _mm512_fmadd_ps(w1, _mm512_load_ps(r0 + ox + pitch), _mm512_fmadd_ps(w0, a0, b));
                    s1 = _mm512_fmadd_ps(w4, _mm512_load_ps(r1 + ox + pitch), _mm512_mul_ps(w3, a1));
                    s2 = _mm512_fmadd_ps(w7, _mm512_load_ps(r2 + ox + pitch), _mm512_mul_ps(w6, a2));
                    s0 = _mm512_fmadd_ps(w2, next(a0, n0, 1), s0);
                    s1 = _mm512_fmadd_ps(w5, next(a1, n1, 1), s1);
                    s2 = _mm512_fmadd_ps(w8, next(a2, n2, 1), s2);
                } else {
                    s0 = _mm512_fmadd_ps(w1, next(a0, n0, 1), _mm512_fmadd_ps(w0, a0, b));
                    s1 = _mm512_fmadd_ps(w4, next(a1, n1, 1), _mm512_mul_ps(w3, a1));
                    s2 = _mm512_fmadd_ps(w7, next(a2, n2, 1), _mm512_mul_ps(w6, a2));
                    s0 = _mm512_fmadd_ps(w2, next(a0, n0, 2), s0);
                    s1 = _mm512_fmadd_ps(w5, next(a1, n1, 2), s1);
                    s2 = _mm512_fmadd_ps(w8, next(a2, n2, 2), s2);
                }
                const __m512 sum = _mm512_add_ps(_mm512_add_ps(s0, s1), s2);
                _mm512_mask_storeu_ps(out + ox, first_lanes(ow - ox), activate(sum, activation, low, high));
                a0 = n0; a1 = n1; a2 = n2;
            }
        }
    }
}
__attribute__((target("avx512f")))
void pg_depthwise3x3_flat_avx512(const pg_window *w, int channels, const float *input, const float *weights,
                                 const float *bias, int activation, float low_bound, float high_bound, float *output) {
    const long width = w->width, height = w->height, outputs = (long)w->out_height * w->out_width;
    const long in_plane = height * width, blocks = (outputs + 15) / 16;
    // Output j = y·width + x reads input j + (ky − pad_top)·width + (kx − pad_left) for each tap: the same offset
    // for every output, since the output rows are as wide as the input's. Each (block, tap) has the lanes whose
    // input lies inside the plane, the same in every channel.
    __mmask16 masks[blocks * 9];
    long offsets[9];
    for (int tap = 0; tap < 9; tap++) {
        offsets[tap] = flat_offset(w, tap);
        for (long b = 0; b < blocks; b++) {
            unsigned int mask = 0;
            for (int lane = 0; lane < 16; lane++) mask |= flat_reads_inside(w, b * 16 + lane, tap) ? 1u << lane : 0;
            masks[b * 9 + tap] = (__mmask16)mask;
        }
    }
    const __m512 low = _mm512_set1_ps(low_bound), high = _mm512_set1_ps(high_bound);
    for (int c = 0; c < channels; c++) {
        const float *plane = input + c * in_plane, *k = weights + 9L * c;
        __m512 tap_weights[9];
        for (int tap = 0; tap < 9; tap++) tap_weights[tap] = _mm512_set1_ps(k[tap]);
        const __m512 b = _mm512_set1_ps(bias ? bias[c] : 0.0f);
        float *out = output + c * outputs;
        for (long block = 0; block < blocks; block++) {
            const float *at = plane + block * 16;
            const __mmask16 *mask = masks + block * 9;
            // Three sums, one per row of taps, so that no add waits long for the one before.
            __m512 s0 = b, s1 = _mm512_setzero_ps(), s2 = _mm512_setzero_ps();
            for (int tap = 0; tap < 3; tap++) {
                s0 = _mm512_fmadd_ps(tap_weights[tap], _mm512_maskz_loadu_ps(mask[tap], at + offsets[tap]), s0);
                s1 = _mm512_fmadd_ps(tap_weights[tap + 3], _mm512_maskz_loadu_ps(mask[tap + 3], at + offsets[tap + 3]), s1);
                s2 = _mm512_fmadd_ps(tap_weights[tap + 6], _mm512_maskz_loadu_ps(mask[tap + 6], at + offsets[tap + 6]), s2);
            }
            const __m512 sum = _mm512_add_ps(_mm512_add_ps(s0, s1), s2);
            _mm512_mask_storeu_ps(out + block * 16, first_lanes(outputs - block * 16), activate(sum, activation, low, high));
        }
    }
}
#endif
