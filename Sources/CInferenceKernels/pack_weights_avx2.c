// pg_pack_weights on AVX2 (and AVX-512 CPUs, which have it): eight rows by eight steps of k transposed in registers,
// where the plain loop gathers one float at a time from eight rows. Linear layers pack their activations on every
// run (a ViT's at batch 8: 1576 × 192 floats four times a layer), which took 5 % of ViT-tiny's time in the plain loop.
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx2_helpers.h"

/// Transposes the 8 × 8 block of `rows` (row r's 8 floats) into `out` (step kk's 8 rows at out + 8 kk).
PG_AVX2 static inline void transpose8x8(const __m256 rows[8], float *out) {
    const __m256 t0 = _mm256_unpacklo_ps(rows[0], rows[1]), t1 = _mm256_unpackhi_ps(rows[0], rows[1]);
    const __m256 t2 = _mm256_unpacklo_ps(rows[2], rows[3]), t3 = _mm256_unpackhi_ps(rows[2], rows[3]);
    const __m256 t4 = _mm256_unpacklo_ps(rows[4], rows[5]), t5 = _mm256_unpackhi_ps(rows[4], rows[5]);
    const __m256 t6 = _mm256_unpacklo_ps(rows[6], rows[7]), t7 = _mm256_unpackhi_ps(rows[6], rows[7]);
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)), u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)), u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    _mm256_storeu_ps(out + 0, _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps(out + 32, _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps(out + 40, _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps(out + 48, _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps(out + 56, _mm256_permute2f128_ps(u3, u7, 0x31));
}

PG_AVX2 void pg_pack_weights_avx2(const float *weights, int m, int k, float *packed) {
    const int panels = (m + PANEL - 1) / PANEL;
    for (int p = 0; p < panels; p++) {
        const int rows = m - p * PANEL < PANEL ? m - p * PANEL : PANEL;
        float *out = packed + (long)p * k * PANEL;
        const float *first = weights + (long)p * PANEL * k;
        int kk = 0;
        if (rows == PANEL) {
            for (; kk + 8 <= k; kk += 8) {
                __m256 block[8];
                for (int r = 0; r < 8; r++) block[r] = _mm256_loadu_ps(first + (long)r * k + kk);
                transpose8x8(block, out + (long)kk * PANEL);
            }
        }
        // A panel's last steps, and a last panel of fewer rows (zeros for the rows past m), one float at a time.
        for (; kk < k; kk++) {
            for (int r = 0; r < PANEL; r++) out[(long)kk * PANEL + r] = r < rows ? first[(long)r * k + kk] : 0.0f;
        }
    }
}
#endif
