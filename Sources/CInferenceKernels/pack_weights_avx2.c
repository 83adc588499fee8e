// pg_pack_weights on AVX2 (and AVX-512 CPUs, which have it): eight rows by eight steps of k transposed in registers,
// where the plain loop gathers one float at a time from eight rows. Linear layers pack their activations on every
// run (a ViT's at batch 8: 1576 × 192 floats four times a layer), which took 5 % of ViT-tiny's time in the plain loop.
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx2_helpers.h"

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
                transpose8x8(block);
                for (int r = 0; r < 8; r++) _mm256_storeu_ps(out + (long)(kk + r) * PANEL, block[r]);
            }
        }
        // A panel's last steps, and a last panel of fewer rows (zeros for the rows past m), one float at a time.
        for (; kk < k; kk++) {
            for (int r = 0; r < PANEL; r++) out[(long)kk * PANEL + r] = r < rows ? first[(long)r * k + kk] : 0.0f;
        }
    }
}
#endif
