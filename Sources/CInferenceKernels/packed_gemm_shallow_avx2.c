// pg_packed_gemm on AVX2 for a shallow product over a convolution's planes (k ≤ SHALLOW_K: MobileNetV2's stem, its
// 1×1 convolutions from 16, 24 and 32 channels). Each panel-by-tile takes few multiply-adds there (16 steps of k: 256
// cycles), so that what pg_panel_tile_avx2 does around them (three blocks' set-up, sums kept across chunks of k,
// choices of what to fetch) cost as much again: a 1×1 convolution from 16 channels ran at 60 GFLOPS on AVX2 where
// AVX-512 ran at 87. Here every block takes all of k in one loop (avx2_block.h), its sums start from the rows'
// biases, and the loops over panels and tiles are inside one call.
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx2_block.h"

PG_AVX2_BLOCK(6, 2)
PG_AVX2_BLOCK(2, 4)

/// Panel `p` against the whole tile from column `n0`: rows 0-5 as two blocks of 16 columns and rows 6-7 as one of
/// 32 (a panel of one or two rows: that block alone). `fetch`: the first block fetches the next tile's rows.
PG_AVX2 static inline void panel_tile(const float *packed, int m, int k, const float *x, long x_pitch, float *y, int n, int p,
                                      int n0, const float *bias, int fetch, const float *bounds) {
    const int row0 = p * PANEL, rows = m - row0 < PANEL ? m - row0 : PANEL;
    const float *w = packed + (long)row0 * k, *source = x + n0, *next = fetch && n0 + 2 * TILE <= n ? source + TILE : NULL;
    const float *b = bias ? bias + row0 : NULL;
    float *out = y + (long)row0 * n + n0;
    if (rows <= 2) {
        pg_block_2x4(w, k, source, x_pitch, next, (pg_block_output){out, n, rows, TILE, b, NULL, bounds});
        return;
    }
    pg_block_6x2(w, k, source, x_pitch, next, (pg_block_output){out, n, rows, 16, b, NULL, bounds});
    pg_block_6x2(w, k, source + 16, x_pitch, NULL, (pg_block_output){out + 16, n, rows, 16, b, NULL, bounds});
    if (rows > 6) pg_block_2x4(w + 6, k, source, x_pitch, NULL, (pg_block_output){out + 6 * n, n, rows - 6, TILE, b ? b + 6 : NULL, NULL, bounds});
}

PG_AVX2 int pg_shallow_gemm_avx2(const float *packed, int m, int k, const float *x, int n, long x_pitch, float *y, const float *bias,
                                 int activation, float low_bound, float high_bound, int panel_first) {
    float bounds[2];
    pg_activation_bounds(activation, low_bound, high_bound, bounds);
    const int panels = (m + PANEL - 1) / PANEL, whole = n / TILE * TILE;
    if (panel_first) {
        // Each panel against every tile, which stay in L2: the first panel fetches each tile's successor.
        for (int p = 0; p < panels; p++) {
            for (int n0 = 0; n0 < whole; n0 += TILE) panel_tile(packed, m, k, x, x_pitch, y, n, p, n0, bias, p == 0, bounds);
        }
    } else {
        for (int n0 = 0; n0 < whole; n0 += TILE) {
            for (int p = 0; p < panels; p++) panel_tile(packed, m, k, x, x_pitch, y, n, p, n0, bias, p == 0, bounds);
        }
    }
    return whole;
}
#endif
