// Matrix products with one operand packed once at load: Y[M×N] = W[M×K]·X[K×N] plus a per-row and a per-column bias
// and an activation. Convolutions pack their weights as W and stream NCHW planes as X (N = output pixels,
// contiguous); Linear layers pack their activations as W on each run and their weights once as X, in tiles of 32
// columns, each tile's K rows contiguous, so that a huge layer's weights stream from memory in one pass. OpenBLAS
// copies (packs) its operands on every call; this packs the weights once. The panel-by-tile kernel is AVX-512's
// (packed_gemm_avx512.c) or AVX2's (packed_gemm_avx2.c), on the same layout, or plain C on the portable path.
#include "inference_kernels.h"
#include "packed_gemm.h"

#include <stdlib.h>

/// A 1 MB L2 (Zen 4 and 5, Ice Lake), and what of it an operand may fill beside the other's stream.
enum { L2 = 1024 * 1024, L2_SHARE = L2 / 2 };

long pg_packed_weights_size(int m, int k) { return (long)((m + PANEL - 1) / PANEL) * PANEL * k; }

long pg_packed_columns_size(int k, int n) { return (long)((n + TILE - 1) / TILE) * TILE * k; }

void pg_pack_columns(const float *b, int k, int n, int transposed, float *packed) {
    const int tiles = (n + TILE - 1) / TILE;
    for (int t = 0; t < tiles; t++) {
        for (int kk = 0; kk < k; kk++) {
            float *out = packed + ((long)t * k + kk) * TILE;
            for (int c = 0; c < TILE; c++) {
                const int column = t * TILE + c;
                out[c] = column >= n ? 0.0f : transposed ? b[(long)column * k + kk] : b[(long)kk * n + column];
            }
        }
    }
}

void pg_pack_weights(const float *weights, int m, int k, float *packed) {
#if defined(__x86_64__)
    if (pg_isa() >= PG_ISA_AVX2) {
        pg_pack_weights_avx2(weights, m, k, packed);
        return;
    }
#endif
    const int panels = (m + PANEL - 1) / PANEL;
    for (int p = 0; p < panels; p++) {
        for (int kk = 0; kk < k; kk++) {
            for (int r = 0; r < PANEL; r++) {
                const int row = p * PANEL + r;
                packed[((long)p * k + kk) * PANEL + r] = row < m ? weights[(long)row * k + kk] : 0.0f;
            }
        }
    }
}

/// The panel-by-tile product in plain C: what the portable path computes where a caller asks it for a packed product
/// (the executor itself takes OpenBLAS there).
static void panel_tile_portable(const float *packed, int m, int k, const float *x, long x_pitch, long tile_stride, long ahead,
                                int prefetch, float *y, int n, int p, int n0, const float *bias, const float *column_bias,
                                int activation, float low, float high) {
    (void)ahead; (void)prefetch;
    const int columns = n - n0 < TILE ? n - n0 : TILE;
    const float *w = packed + (long)p * k * PANEL, *source = x + (long)(n0 / TILE) * tile_stride;
    for (int r = 0; r < PANEL && p * PANEL + r < m; r++) {
        const int row = p * PANEL + r;
        float *out = y + (long)row * n + n0;
        for (int c = 0; c < columns; c++) {
            float sum = 0.0f;
            for (int kk = 0; kk < k; kk++) sum += w[(long)kk * PANEL + r] * source[(long)kk * x_pitch + c];
            out[c] = sum + (bias ? bias[row] : 0.0f) + (column_bias ? column_bias[n0 + c] : 0.0f);
        }
        pg_bias_activation(out, columns, 0.0f, activation, low, high);
    }
}

/// This thread's buffer of at least `floats` floats, 64-byte aligned, kept for its next call; NULL when memory is out.
static float *thread_buffer(long floats) {
    static __thread float *buffer;
    static __thread long capacity;
    if (floats > capacity) {
        free(buffer);
        const size_t bytes = ((size_t)floats * sizeof(float) + 63) / 64 * 64;
        buffer = aligned_alloc(64, bytes);
        capacity = buffer ? floats : 0;
    }
    return buffer;
}

/// The AVX2 product where x is rows of the full width (a convolution's planes) and deep: each tile of x copied once
/// into contiguous rows first. Its four blocks per panel each read the tile's k rows, which straight from the planes
/// are k cache lines in as many pages, apart by a plane; copied, they are one stream in L1. (A shallow product's
/// few rows stay in cache and the TLB: the copy would cost more than it saves.) Returns 0 (and does
/// nothing) when the copy's memory cannot be had.
static int gemm_copying_x(const float *packed, int m, int k, const float *x, int n, long x_pitch, float *y,
                          const float *bias, const float *column_bias, int activation, float low, float high,
                          int panel_first, int refetch, pg_panel_tile *panel_tile) {
    const int panels = (m + PANEL - 1) / PANEL, tiles = (n + TILE - 1) / TILE;
    if (panel_first) {
        // Every tile copied at once: x fits in L2, and each panel runs against all of them.
        float *copy = thread_buffer((long)tiles * TILE * k);
        if (!copy) return 0;
        pg_copy_tiles_avx2(x, k, n, x_pitch, 0, n, copy);
        for (int p = 0; p < panels; p++) {
            for (int n0 = 0; n0 < n; n0 += TILE) {
                panel_tile(packed, m, k, copy, TILE, (long)TILE * k, 0, 2 * refetch, y, n, p, n0, bias, column_bias, activation, low, high);
            }
        }
        return 1;
    }
    float *copy = thread_buffer((long)TILE * k);
    if (!copy) return 0;
    for (int n0 = 0; n0 < n; n0 += TILE) {
        pg_copy_tiles_avx2(x, k, n, x_pitch, n0, n0 + 1, copy);
        for (int p = 0; p < panels; p++) {
            // The tile stride is 0: the copy holds this tile alone, at `copy` whatever n0 is.
            panel_tile(packed, m, k, copy, TILE, 0, 0, 2 * refetch, y, n, p, n0, bias, column_bias, activation, low, high);
        }
    }
    return 1;
}

void pg_packed_gemm(const float *packed, int m, int k, const float *x, int n, long x_pitch, long tile_stride, float *y,
                    const float *bias, const float *column_bias, int activation, float low_bound, float high_bound) {
    const int panels = (m + PANEL - 1) / PANEL;
#if defined(__x86_64__)
    pg_panel_tile *const panel_tile = pg_isa() == PG_ISA_AVX512 ? pg_panel_tile_avx512
        : pg_isa() == PG_ISA_AVX2                             ? pg_panel_tile_avx2
                                                              : panel_tile_portable;
#else
    pg_panel_tile *const panel_tile = panel_tile_portable;
#endif
    // The first panel of a tile brings the tile of x in; later ones find it in cache. As it goes, it fetches ahead
    // what comes next, which the prefetcher alone fetches too late: where the next tile follows this one in memory
    // (packed weights, a huge layer's stream from memory), the rows `AHEAD` steps on; where tiles are columns of
    // the same rows (the planes of a convolution, often just written by the layer before and out of L2), the same
    // row of the next tile.
    const long ahead = tile_stride == (long)k * x_pitch ? STREAM_AHEAD * x_pitch : tile_stride;
    const long x_bytes = (long)k * (tile_stride == TILE ? n : ((n + TILE - 1) / TILE) * TILE) * 4;
    const long packed_bytes = (long)panels * PANEL * k * 4;
    const int panel_first = (x_bytes <= L2_SHARE && packed_bytes > L2) || (x_bytes <= L2 && k <= SHALLOW_K);
    const int tiled = x_pitch == TILE && tile_stride == (long)k * TILE;
    // AVX2's blocks read a tile in several passes: where each panel takes every tile, which are in L2 but not L1
    // after the first panel's, each panel fetches ahead what its next chunk will read. (Where each tile takes every
    // panel, the tile stays close enough: fetching it again cost ConvNeXt-tiny's deep stages a fifth more time.)
    const int refetch = panel_tile == pg_panel_tile_avx2 && panel_first;
    if (panel_tile == pg_panel_tile_avx512 && x_pitch == n && n > TILE && n <= 49 && tile_stride == TILE && !column_bias) {
        // A small plane (7×7's 49 columns) in three vectors and a column, where tiles take 64 columns' work:
        // MobileNetV2's 7×7 layers warm at 168-173 GFLOPS, in tiles 107-110 (packed_gemm_bench on the Xeon).
        pg_small_plane_gemm_avx512(packed, m, k, x, n, y, bias, activation, low_bound, high_bound);
        return;
    }
    if (panel_tile == pg_panel_tile_avx2 && x_pitch == n && n > TILE && n < 56 && tile_stride == TILE && !column_bias) {
        // A small plane (7×7's 49 columns): no multiply-add on a missing column.
        float *blocks = thread_buffer((long)k * n);
        if (blocks) {
            pg_small_plane_gemm_avx2(packed, m, k, x, n, y, bias, activation, low_bound, high_bound, blocks);
            return;
        }
    }
    if (panel_tile == pg_panel_tile_avx2 && k <= SHALLOW_K && tile_stride == TILE && !column_bias) {
        const int done = pg_shallow_gemm_avx2(packed, m, k, x, n, x_pitch, y, bias, activation, low_bound, high_bound, panel_first);
        for (int n0 = done; n0 < n; n0 += TILE) {
            for (int p = 0; p < panels; p++) {
                panel_tile(packed, m, k, x, x_pitch, tile_stride, 0, 0, y, n, p, n0, bias, NULL, activation, low_bound, high_bound);
            }
        }
        return;
    }
    if (panel_tile == pg_panel_tile_avx2 && !tiled && k > SHALLOW_K
        && gemm_copying_x(packed, m, k, x, n, x_pitch, y, bias, column_bias, activation, low_bound, high_bound, panel_first, refetch,
                          panel_tile)) {
        return;
    }
    if (panel_first) {
        // Each panel of weights against every tile of x, which stays in L2, where the other order reads the
        // weights again for every tile or writes all of y's rows at once. Two cases: more weights than L2 holds
        // against few columns (a 1×1 convolution on a 7×7 plane: each panel is read from L3 once), and a shallow
        // product (k ≤ SHALLOW_K, an expanding 1×1 convolution: 16 → 96 channels of 112×112), where a tile's stores
        // come every few steps and eight rows written in order are eight streams, not 96 (4.1 → 3.3 ms at batch 8).
        for (int p = 0; p < panels; p++) {
            for (int n0 = 0; n0 < n; n0 += TILE) {
                panel_tile(packed, m, k, x, x_pitch, tile_stride, ahead, p == 0 ? 1 : 2 * refetch, y, n, p, n0, bias, column_bias,
                           activation, low_bound, high_bound);
            }
        }
        return;
    }
    for (int n0 = 0; n0 < n; n0 += TILE) {
        for (int p = 0; p < panels; p++) {
            panel_tile(packed, m, k, x, x_pitch, tile_stride, ahead, p == 0 ? 1 : 2 * refetch, y, n, p, n0, bias, column_bias, activation,
                       low_bound, high_bound);
        }
    }
}
