// Depthwise 3×3 convolution on AVX2 with FMA, the twin of depthwise3x3_avx512.c on the same padded copy: each plane
// copied with its zero border (at column stride 2 split into even and odd columns, by a shuffle within lanes and a
// permute across them), then eight outputs at a time with the nine weights in registers, one sum per row of taps,
// and bias and activation applied as they are stored. AVX2 has no two-register align, so the taps one and two
// columns on are unaligned loads. Small "same" planes take pg_depthwise3x3_flat_avx2: each plane one long row,
// a lane mask per block and tap.
#include "depthwise3x3.h"

#if defined(__x86_64__)
#include "avx2_helpers.h"

/// The 8 values of `row` from column `start` on, zero outside [0, width) and everywhere when the row is not `inside`.
PG_AVX2 static inline __m256 load_row(const float *row, long start, long width, int inside) {
    if (!inside) return _mm256_setzero_ps();
    if (start >= 0 && start + 8 <= width) return _mm256_loadu_ps(row + start);
    const __m256i mask = _mm256_andnot_si256(lanes8(-start), lanes8(width - start));
    return _mm256_maskload_ps(row + start, mask);
}

PG_AVX2 void pg_pad_plane_avx2(const pg_window *w, const float *plane, float *padded, long pitch) {
    const long rows = padded_rows(w), columns = padded_columns(w), width = w->width, left = w->pad_left;
    const int split = w->stride_x == 2, large = (long)w->height * width >= LARGE_PLANE;
    for (long r = 0; r < rows; r++) {
        const long y = r - w->pad_top;
        float *out = padded + r * pitch * (split ? 2 : 1);
        const int inside = y >= 0 && y < w->height;
        const float *row = plane + (inside ? y : 0) * width;
        // A large plane the layer before just wrote is often out of L2 by now: its rows fetched ahead.
        if (large && y + AHEAD_ROWS >= 0 && y + AHEAD_ROWS < w->height) {
            const float *ahead = plane + (y + AHEAD_ROWS) * width;
            for (long c = 0; c < width; c += 16) _mm_prefetch((const char *)(ahead + c), _MM_HINT_T0);
        }
        if (!split) {
            for (long c = 0; c < columns; c += 8) _mm256_storeu_ps(out + c, load_row(row, c - left, width, inside));
        } else {
            for (long c = 0; c < columns; c += 8) {
                const __m256 a = load_row(row, 2 * c - left, width, inside);
                const __m256 b = load_row(row, 2 * c - left + 8, width, inside);
                // [a0 a2 b0 b2 | a4 a6 b4 b6], its 64-bit pairs reordered to [a0 a2 a4 a6 b0 b2 b4 b6]; odds alike.
                const __m256 evens = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
                const __m256 odds = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
                _mm256_storeu_ps(out + c, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(evens), _MM_SHUFFLE(3, 1, 2, 0))));
                _mm256_storeu_ps(out + pitch + c,
                                 _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(odds), _MM_SHUFFLE(3, 1, 2, 0))));
            }
        }
    }
}

PG_AVX2 void pg_depthwise3x3_avx2(const pg_window *w, int channels, const float *input, const float *weights,
                                  const float *bias, int activation, float low_bound, float high_bound, float *output,
                                  float *scratch) {
    const long pitch = padded_pitch(w), in_plane = (long)w->height * w->width;
    const int ow = w->out_width, oh = w->out_height, split = w->stride_x == 2;
    // At stride 2 a row's first and third taps are its even columns x and x+1, the second its odd column x.
    const long row_step = pitch * (split ? 2 : 1), second = split ? pitch : 1, third = split ? 1 : 2;
    const __m256 low = _mm256_set1_ps(low_bound), high = _mm256_set1_ps(high_bound);
    for (int c = 0; c < channels; c++) {
        pg_pad_plane_avx2(w, input + c * in_plane, scratch, pitch);
        const float *k = weights + 9L * c;
        const __m256 w0 = _mm256_set1_ps(k[0]), w1 = _mm256_set1_ps(k[1]), w2 = _mm256_set1_ps(k[2]);
        const __m256 w3 = _mm256_set1_ps(k[3]), w4 = _mm256_set1_ps(k[4]), w5 = _mm256_set1_ps(k[5]);
        const __m256 w6 = _mm256_set1_ps(k[6]), w7 = _mm256_set1_ps(k[7]), w8 = _mm256_set1_ps(k[8]);
        const __m256 b = _mm256_set1_ps(bias ? bias[c] : 0.0f);
        float *plane = output + (long)c * oh * ow;
        for (int oy = 0; oy < oh; oy++) {
            const float *r0 = scratch + (long)oy * w->stride_y * row_step, *r1 = r0 + row_step, *r2 = r1 + row_step;
            float *out = plane + (long)oy * ow;
            for (int ox = 0; ox < ow; ox += 8) {
                __m256 s0 = _mm256_fmadd_ps(w0, _mm256_loadu_ps(r0 + ox), b);
                __m256 s1 = _mm256_mul_ps(w3, _mm256_loadu_ps(r1 + ox));
                __m256 s2 = _mm256_mul_ps(w6, _mm256_loadu_ps(r2 + ox));
                s0 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(r0 + ox + second), s0);
                s1 = _mm256_fmadd_ps(w4, _mm256_loadu_ps(r1 + ox + second), s1);
                s2 = _mm256_fmadd_ps(w7, _mm256_loadu_ps(r2 + ox + second), s2);
                s0 = _mm256_fmadd_ps(w2, _mm256_loadu_ps(r0 + ox + third), s0);
                s1 = _mm256_fmadd_ps(w5, _mm256_loadu_ps(r1 + ox + third), s1);
                s2 = _mm256_fmadd_ps(w8, _mm256_loadu_ps(r2 + ox + third), s2);
                store8(out + ox, activate8(_mm256_add_ps(_mm256_add_ps(s0, s1), s2), activation, low, high), ow - ox);
            }
        }
    }
}

PG_AVX2 void pg_depthwise3x3_flat_avx2(const pg_window *w, int channels, const float *input, const float *weights,
                                       const float *bias, int activation, float low_bound, float high_bound, float *output) {
    const long width = w->width, height = w->height, outputs = (long)w->out_height * w->out_width;
    const long in_plane = height * width, blocks = (outputs + 7) / 8;
    // Output j = y·width + x reads input j + (ky − pad_top)·width + (kx − pad_left) for each tap: the same offset
    // for every output. Each (block, tap) has the lanes whose input lies inside the plane, the same in every channel.
    __m256i masks[blocks * 9];
    long offsets[9];
    for (int tap = 0; tap < 9; tap++) {
        offsets[tap] = flat_offset(w, tap);
        for (long block = 0; block < blocks; block++) {
            int lanes[8];
            for (int lane = 0; lane < 8; lane++) lanes[lane] = flat_reads_inside(w, block * 8 + lane, tap) ? -1 : 0;
            masks[block * 9 + tap] = _mm256_loadu_si256((const __m256i *)lanes);
        }
    }
    const __m256 low = _mm256_set1_ps(low_bound), high = _mm256_set1_ps(high_bound);
    for (int c = 0; c < channels; c++) {
        const float *plane = input + c * in_plane, *k = weights + 9L * c;
        __m256 tap_weights[9];
        for (int tap = 0; tap < 9; tap++) tap_weights[tap] = _mm256_set1_ps(k[tap]);
        const __m256 b = _mm256_set1_ps(bias ? bias[c] : 0.0f);
        float *out = output + c * outputs;
        for (long block = 0; block < blocks; block++) {
            const float *at = plane + block * 8;
            const __m256i *mask = masks + block * 9;
            // Three sums, one per row of taps, so that no add waits long for the one before.
            __m256 s0 = b, s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps();
            for (int tap = 0; tap < 3; tap++) {
                s0 = _mm256_fmadd_ps(tap_weights[tap], _mm256_maskload_ps(at + offsets[tap], mask[tap]), s0);
                s1 = _mm256_fmadd_ps(tap_weights[tap + 3], _mm256_maskload_ps(at + offsets[tap + 3], mask[tap + 3]), s1);
                s2 = _mm256_fmadd_ps(tap_weights[tap + 6], _mm256_maskload_ps(at + offsets[tap + 6], mask[tap + 6]), s2);
            }
            store8(out + block * 8, activate8(_mm256_add_ps(_mm256_add_ps(s0, s1), s2), activation, low, high), outputs - block * 8);
        }
    }
}
#endif
