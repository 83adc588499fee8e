// pg_packed_gemm's last tile on AVX2 where it has 24 columns or fewer, and its rows are packed or copied (readable
// for all 32): a 7×7 plane's 49 columns are a tile of 32 and one of 17, and the 6 × 16 blocks of pg_panel_tile_avx2
// would take 32 multiply-adds a step for the 17 (one of its blocks for a single column). Blocks as wide as the
// columns instead: 3 rows × 24 columns three times (24 multiply-adds; 4 × 24 would need every register and spill),
// 6 × 16 and 2 × 16 (16), or 8 × 8 (8).
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx2_block.h"

PG_AVX2_BLOCK(3, 3)
PG_AVX2_BLOCK(6, 2)
PG_AVX2_BLOCK(2, 2)
PG_AVX2_BLOCK(8, 1)

PG_AVX2 void pg_narrow_tile_avx2(const float *packed, int m, int k, const float *x, long tile_stride, float *y, int n, int p, int n0,
                                 const float *bias, const float *column_bias, const float *bounds) {
    const int row0 = p * PANEL, rows = m - row0 < PANEL ? m - row0 : PANEL, columns = n - n0;
    const float *w = packed + (long)row0 * k, *source = x + (long)(n0 / TILE) * tile_stride;
    const float *b = bias ? bias + row0 : NULL, *columns_bias = column_bias ? column_bias + n0 : NULL;
    float *out = y + (long)row0 * n + n0;
    /// The output of the block from row `r` on, at most `count` rows.
#define OUTPUT(r, count) \
    (pg_block_output){out + (r) * (long)n, n, rows - (r) < (count) ? rows - (r) : (count), columns, b ? b + (r) : NULL, columns_bias, bounds}
    if (columns > 16) {
        for (int r = 0; r < rows; r += 3) pg_block_3x3(w + r, k, source, TILE, NULL, OUTPUT(r, 3));
    } else if (columns > 8) {
        pg_block_6x2(w, k, source, TILE, NULL, OUTPUT(0, 6));
        if (rows > 6) pg_block_2x2(w + 6, k, source, TILE, NULL, OUTPUT(6, 2));
    } else {
        pg_block_8x1(w, k, source, TILE, NULL, OUTPUT(0, 8));
    }
#undef OUTPUT
}
#endif
