// What the AVX-512 kernels share: lane masks and the activation they apply as they store. Private to
// CInferenceKernels; x86-64 only.
#ifndef PLANTGUIDE_AVX512_HELPERS_H
#define PLANTGUIDE_AVX512_HELPERS_H

#include "inference_kernels.h"

#include <immintrin.h>

/// The lanes [0, count) of a vector: all of them from 16 on, none below 1.
static inline __mmask16 first_lanes(long count) {
    return count >= 16 ? (__mmask16)0xFFFF : count <= 0 ? (__mmask16)0 : (__mmask16)((1u << count) - 1);
}

/// `activation` (a PG_ACTIVATION_*, Clip's bounds in `low` and `high`) of every lane.
__attribute__((target("avx512f")))
static inline __m512 activate(__m512 value, int activation, __m512 low, __m512 high) {
    if (activation == PG_ACTIVATION_RELU) return _mm512_max_ps(value, _mm512_setzero_ps());
    if (activation == PG_ACTIVATION_CLIP) return _mm512_min_ps(_mm512_max_ps(value, low), high);
    return value;
}

#endif
