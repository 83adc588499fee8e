// What the AVX2 kernels share: lane masks for the masked loads and stores at the end of a row, the activation
// they apply as they store, and an 8 × 8 transpose in registers. Private to CInferenceKernels; x86-64 only.
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

/// Transposes 8 × 8 floats in registers: `v[j]` holds row j of the block, then its column j.
PG_AVX2 static inline void transpose8x8(__m256 v[8]) {
    const __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
    const __m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
    const __m256 t4 = _mm256_unpacklo_ps(v[4], v[5]), t5 = _mm256_unpackhi_ps(v[4], v[5]);
    const __m256 t6 = _mm256_unpacklo_ps(v[6], v[7]), t7 = _mm256_unpackhi_ps(v[6], v[7]);
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)), u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)), u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    v[0] = _mm256_permute2f128_ps(u0, u4, 0x20), v[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    v[2] = _mm256_permute2f128_ps(u2, u6, 0x20), v[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    v[4] = _mm256_permute2f128_ps(u0, u4, 0x31), v[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    v[6] = _mm256_permute2f128_ps(u2, u6, 0x31), v[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

#endif
