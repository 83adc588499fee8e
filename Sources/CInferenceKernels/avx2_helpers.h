// What the AVX2 kernels share: lane masks for the masked loads and stores at the end of a row, and the activation
// they apply as they store. Private to CInferenceKernels; x86-64 only.
#ifndef PLANTGUIDE_AVX2_HELPERS_H
#define PLANTGUIDE_AVX2_HELPERS_H

#include "inference_kernels.h"

#include <immintrin.h>

#define PG_AVX2 __attribute__((target("avx2,fma")))

/// The lanes [0, count) of a vector as a maskload/maskstore mask: all of them from 8 on, none below 1.
PG_AVX2 static inline __m256i lanes8(long count) {
    const int clamped = count >= 8 ? 8 : count <= 0 ? 0 : (int)count;
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(clamped), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/// `activation` (a PG_ACTIVATION_*, Clip's bounds in `low` and `high`) of every lane.
PG_AVX2 static inline __m256 activate8(__m256 value, int activation, __m256 low, __m256 high) {
    if (activation == PG_ACTIVATION_RELU) return _mm256_max_ps(value, _mm256_setzero_ps());
    if (activation == PG_ACTIVATION_CLIP) return _mm256_min_ps(_mm256_max_ps(value, low), high);
    return value;
}

/// Stores the first `count` lanes of `value` (all eight with a plain store).
PG_AVX2 static inline void store8(float *destination, __m256 value, long count) {
    if (count >= 8) _mm256_storeu_ps(destination, value);
    else if (count > 0) _mm256_maskstore_ps(destination, lanes8(count), value);
}

/// The first `count` floats from `source`, zeros in the other lanes (none of which is read).
PG_AVX2 static inline __m256 load8(const float *source, long count) {
    if (count >= 8) return _mm256_loadu_ps(source);
    return count > 0 ? _mm256_maskload_ps(source, lanes8(count)) : _mm256_setzero_ps();
}

#endif
