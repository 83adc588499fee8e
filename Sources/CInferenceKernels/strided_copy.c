// Every stride-th float of a row: the stride-2 rows im2col unfolds for a strided convolution (MobileNet's and
// EfficientNet's stems), where a scalar loop was 2-3 % of MobileNetV2's time. Two loads and one permute per 16
// values on AVX-512; on AVX2 two loads, a shuffle within lanes and a permute across them per 8.
#include "inference_kernels.h"

#if defined(__x86_64__)
#include "avx2_helpers.h"
#include "avx512_helpers.h"

__attribute__((target("avx512f")))
static void copy_evens_avx512(const float *source, float *destination, long count) {
    const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const long readable = 2 * count - 1;  // the source floats the copy may read: up to the last one it keeps
    for (long i = 0; i < count; i += 16) {
        const __m512 a = _mm512_maskz_loadu_ps(first_lanes(readable - 2 * i), source + 2 * i);
        const __m512 b = _mm512_maskz_loadu_ps(first_lanes(readable - 2 * i - 16), source + 2 * i + 16);
        _mm512_mask_storeu_ps(destination + i, first_lanes(count - i), _mm512_permutex2var_ps(a, evens, b));
    }
}

PG_AVX2 static void copy_evens_avx2(const float *source, float *destination, long count) {
    const long readable = 2 * count - 1;  // the source floats the copy may read: up to the last one it keeps
    for (long i = 0; i < count; i += 8) {
        const __m256 a = load8(source + 2 * i, readable - 2 * i), b = load8(source + 2 * i + 8, readable - 2 * i - 8);
        const __m256 evens = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
        store8(destination + i, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(evens), _MM_SHUFFLE(3, 1, 2, 0))), count - i);
    }
}
#endif

void pg_copy_strided(const float *source, long stride, float *destination, long count) {
#if defined(__x86_64__)
    if (stride == 2 && pg_isa() == PG_ISA_AVX512) {
        copy_evens_avx512(source, destination, count);
        return;
    }
    if (stride == 2 && pg_isa() == PG_ISA_AVX2) {
        copy_evens_avx2(source, destination, count);
        return;
    }
#endif
    for (long i = 0; i < count; i++) destination[i] = source[i * stride];
}
