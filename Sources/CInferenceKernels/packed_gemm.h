// The layout pg_pack_weights and pg_pack_columns write, the same for every instruction set (a model packed once
// runs on any of them), and the kernels that compute one panel of it against one tile. Private to CInferenceKernels.
#ifndef PLANTGUIDE_PACKED_GEMM_H
#define PLANTGUIDE_PACKED_GEMM_H

/// Rows of W per panel, columns of X per tile.
enum { PANEL = 8, TILE = 32 };
/// Steps of k the weights and a streamed X are fetched ahead.
enum { AHEAD = 32, STREAM_AHEAD = 64 };
/// Products this deep or less store their tiles so often that the order of their stores, and all that is done around
/// a tile's multiply-adds, decide their speed.
enum { SHALLOW_K = 64 };

/// One panel `p` of 8 rows of y against one tile of 32 columns from `n0` (fewer where n ends), over all of k,
/// plus the biases and the activation. `prefetch` 1: this call brings the tile in from memory, and fetches ahead
/// (`ahead` floats on, or AVX2's next chunk); 2 (AVX2 only): the tile is in L2, fetch its next chunk.
typedef void pg_panel_tile(const float *packed, int m, int k, const float *x, long x_pitch, long tile_stride, long ahead,
                           int prefetch, float *y, int n, int p, int n0, const float *bias, const float *column_bias,
                           int activation, float low, float high);

pg_panel_tile pg_panel_tile_avx512;
pg_panel_tile pg_panel_tile_avx2;

/// pg_pack_weights on AVX2 (8 × 8 blocks transposed in registers).
void pg_pack_weights_avx2(const float *weights, int m, int k, float *packed);

/// Copies the tiles of x from column `n0` up to `end` (row-major, rows `x_pitch` apart) into `tiles`, each k rows of
/// 32 floats with zeros past n: the layout pg_pack_columns writes.
void pg_copy_tiles_avx2(const float *x, int k, int n, long x_pitch, int n0, int end, float *tiles);

/// Panel `p` against the last tile, from column `n0` (at most 24 columns, its rows TILE floats apart and readable for
/// all of them: packed or copied), clamped to `bounds` (low, high) after the biases: a narrow tile on AVX2.
void pg_narrow_tile_avx2(const float *packed, int m, int k, const float *x, long tile_stride, float *y, int n, int p, int n0,
                         const float *bias, const float *column_bias, const float *bounds);

/// pg_packed_gemm on AVX2 for a convolution's plane of 33 to 55 columns (rows `n` apart), no column biases; `blocks`
/// (k × n floats) holds x's columns copied in blocks.
void pg_small_plane_gemm_avx2(const float *packed, int m, int k, const float *x, int n, float *y, const float *bias, int activation,
                              float low_bound, float high_bound, float *blocks);

/// pg_packed_gemm on AVX-512 for a convolution's plane of 33 to 49 columns (rows `n` apart), no column biases.
void pg_small_plane_gemm_avx512(const float *packed, int m, int k, const float *x, int n, float *y, const float *bias, int activation,
                                float low_bound, float high_bound);

/// pg_packed_gemm on AVX2 for a shallow product (k ≤ SHALLOW_K) of rows of the full width (tile stride TILE), no
/// column biases: the whole tiles, panel by panel (`panel_first`) or tile by tile. Returns the columns done.
int pg_shallow_gemm_avx2(const float *packed, int m, int k, const float *x, int n, long x_pitch, float *y, const float *bias,
                         int activation, float low_bound, float high_bound, int panel_first);

#endif
