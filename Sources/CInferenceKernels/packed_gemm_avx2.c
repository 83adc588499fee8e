// pg_packed_gemm's inner kernel on AVX2 with FMA, on the same packed layout as AVX-512's: with 16 vector registers
// of 8 floats, a panel of 8 rows against a tile of 32 columns is three blocks, 6 rows × 16 columns twice and 2 rows
// × 32 columns, each with its sums in registers (per step, 22 loads for 32 multiply-adds: the multipliers, not the
// loads, set the pace). The blocks take turns over chunks of k, so that each chunk of x is read from memory once and
// by the other blocks from L1, and store their sums straight from registers. A tile's last columns load and store
// through lane masks. Packed or copied tiles of at most WHOLE_K rows take blocks over all of k instead
// (avx2_block.h), and a narrow last tile blocks as wide as it is (packed_gemm_narrow_avx2.c); shallow products and
// small planes have kernels of their own (packed_gemm_shallow_avx2.c, packed_gemm_small_plane_avx2.c).
#include "inference_kernels.h"
#include "packed_gemm.h"

#if defined(__x86_64__)
#include "avx2_block.h"

/// value + bias + column_bias, clamped to [bounds[0], bounds[1]]: the activation as bounds (±infinity for none, 0 and
/// +infinity for Relu), with no branch. The bounds are read from memory when a block is done: in registers across its
/// loop they would take two of the sixteen it needs, and its sums would spill to the stack (a shallow product ran at
/// 80 GFLOPS instead of 97). max(low, x) then min(high, x), in that order of operands, keep a NaN a NaN, as Relu and
/// Clip do.
PG_AVX2 static inline __m256 finish(__m256 value, float bias, __m256 column_bias, const float *bounds) {
    const __m256 low = _mm256_broadcast_ss(bounds), high = _mm256_broadcast_ss(bounds + 1);
    return _mm256_min_ps(high, _mm256_max_ps(low, _mm256_add_ps(_mm256_add_ps(value, _mm256_set1_ps(bias)), column_bias)));
}

/// The column biases of 8 columns from `column` on (`count` of them real), zeros without any.
PG_AVX2 static inline __m256 column_biases(const float *column_bias, long column, long count) {
    return column_bias ? load8(column_bias + column, count) : _mm256_setzero_ps();
}

/// Steps of k the three blocks of a panel take in turn: 128 rows of a tile (16 KB) stay in L1 for the block that reads
/// them next, where a whole tile of a large layer (k in the tens of thousands) would not stay even in L2 and be read
/// from memory three times.
enum { K_CHUNK = 128 };

/// Fetches ahead for `group` steps of a block: the weights `AHEAD` steps on for the `lead` block (8 floats a step),
/// and rows of x from `fetch` (none when NULL), `rows` of them over the chunk's steps, each row two cache lines. From
/// memory (`spread`), line by line evenly over every step: all at the chunk's start would ask for more lines at once
/// than the core can have in flight, and fetching half the time cost Linear layers at batch 8 half again as much.
/// From L2, a row every `every` steps: a fixed period, where the uneven one cost ViT's layers a twentieth.
#define FETCH_AHEAD(group)                                                                                     \
    do {                                                                                                       \
        if (lead) {                                                                                            \
            _mm_prefetch((const char *)(w + AHEAD * PANEL), _MM_HINT_T0);                                      \
            if ((group) * PANEL > 16) _mm_prefetch((const char *)(w + AHEAD * PANEL + 16), _MM_HINT_T0);       \
        }                                                                                                      \
        if (fetch && spread) {                                                                                 \
            for (due += 2 * rows * (group); due >= steps; due -= steps, fetched++) {                           \
                _mm_prefetch((const char *)(fetch + (fetched >> 1) * x_pitch + (fetched & 1) * 16), _MM_HINT_T0); \
            }                                                                                                  \
        } else if (fetch) {                                                                                    \
            for (due -= (group); due <= 0 && fetched < rows; due += every, fetched++) {                        \
                _mm_prefetch((const char *)(fetch + fetched * x_pitch), _MM_HINT_T0);                          \
                _mm_prefetch((const char *)(fetch + fetched * x_pitch + 16), _MM_HINT_T0);                     \
            }                                                                                                  \
        }                                                                                                      \
    } while (0)

/// A block's loop over its chunk: STEP (one step of k, which the block defines) BLOCK_UNROLL at a time with one
/// FETCH_AHEAD for them, then the rest one by one.
#define STEPS()                                                                                                \
    do {                                                                                                       \
        int kk = 0;                                                                                            \
        for (; kk + BLOCK_UNROLL <= steps; kk += BLOCK_UNROLL) {                                               \
            FETCH_AHEAD(BLOCK_UNROLL);                                                                         \
            for (int u = 0; u < BLOCK_UNROLL; u++) STEP();                                                     \
        }                                                                                                      \
        for (; kk < steps; kk++) {                                                                             \
            FETCH_AHEAD(1);                                                                                    \
            STEP();                                                                                            \
        }                                                                                                      \
    } while (0)

/// The state FETCH_AHEAD counts with: lines or rows fetched, the period, and the count towards the next.
#define FETCH_STATE() long fetched = 0, every = fetch && !spread && rows > 0 && steps / rows > 1 ? steps / rows : 1, due = spread ? 0 : 1

/// Where a block's sums go once k is done: `rows` rows of y from `y` (`n` floats apart), `columns` columns, finished
/// with the rows' and the columns' biases and the bounds. (The columns a block loads may be more: a packed tile's
/// zeros past n.)
typedef struct {
    float *y;
    long n, columns;
    int rows;
    const float *bias, *column_bias;  // the block's first row's and first column's; NULL for none
    const float *bounds;              // as finish takes them
} epilogue;

/// Stores vector `v` (8 columns) of row `r` of a block's sums, finished.
PG_AVX2 static inline __attribute__((always_inline)) void store_sum(const epilogue *e, int r, int v, __m256 sum,
                                                                   const int whole) {
    // The row's bias is in the sum from its start (start_sum).
    const __m256 biased = e->column_bias ? _mm256_add_ps(sum, load8(e->column_bias + 8 * v, e->columns - 8 * v)) : sum;
    const __m256 value = _mm256_min_ps(_mm256_broadcast_ss(e->bounds + 1), _mm256_max_ps(_mm256_broadcast_ss(e->bounds), biased));
    if (whole) _mm256_storeu_ps(e->y + r * e->n + 8 * v, value);
    else store8(e->y + r * e->n + 8 * v, value, e->columns - 8 * v);
}

/// What row `r` of a block's sums starts from: the row's bias (zero past the block's rows), so that storing adds none.
PG_AVX2 static inline __attribute__((always_inline)) __m256 start_sum(const epilogue *e, int r) {
    return e->bias && r < e->rows ? _mm256_set1_ps(e->bias[r]) : _mm256_setzero_ps();
}

/// 6 rows of the panel (`w` at the first) against 16 columns of x from `source` for `steps` steps of k: 12 chains of
/// multiply-adds, more than the 8 that two 4-cycle multipliers need, so that a late load does not stall them. The
/// sums start from zero on the `first` chunk, else from `sums` (columns 0-7 of each row, then 8-15); after the
/// `last` they are stored through `out`, else kept in `sums`. `full` (a constant at each call): all 16 columns are
/// there; else `columns` are. The `lead` block, the first to read a chunk, fetches the weights ahead; each block
/// fetches its `rows` of x from `fetch` (none when NULL).
PG_AVX2 static inline __attribute__((always_inline)) void
block6x16(const float *w, int steps, const float *source, long x_pitch, const int full, long columns, const int lead,
          const float *fetch, long rows, int spread, int first, int last, const epilogue out, const int whole,
          __m256 *sums) {
    const __m256i mask0 = lanes8(columns), mask1 = lanes8(columns - 8);
    __m256 a[6], b[6];
    for (int r = 0; r < 6; r++) {
        a[r] = first ? start_sum(&out, r) : sums[r];
        b[r] = first ? start_sum(&out, r) : sums[6 + r];
    }
    FETCH_STATE();
#define STEP()                                                                                                  \
    do {                                                                                                        \
        const __m256 x0 = full ? _mm256_loadu_ps(source) : _mm256_maskload_ps(source, mask0);                    \
        const __m256 x1 = full ? _mm256_loadu_ps(source + 8) : _mm256_maskload_ps(source + 8, mask1);            \
        for (int r = 0; r < 6; r++) {                                                                           \
            const __m256 v = _mm256_broadcast_ss(w + r);                                                        \
            a[r] = _mm256_fmadd_ps(v, x0, a[r]);                                                                \
            b[r] = _mm256_fmadd_ps(v, x1, b[r]);                                                                \
        }                                                                                                       \
        w += PANEL, source += x_pitch;                                                                          \
    } while (0)
    STEPS();
#undef STEP
    for (int r = 0; r < 6; r++) {
        if (!last) {
            sums[r] = a[r];
            sums[6 + r] = b[r];
        } else if (r < out.rows) {
            store_sum(&out, r, 0, a[r], whole);
            store_sum(&out, r, 1, b[r], whole);
        }
    }
}

/// 2 rows of the panel against all 32 columns of the tile: the panel's last two rows after two 6×16 blocks, or a
/// panel of two rows; `sums` holds each row's four vectors. The rest as block6x16.
PG_AVX2 static inline __attribute__((always_inline)) void
block2x32(const float *w, int steps, const float *source, long x_pitch, const int full, long columns, const int lead,
          const float *fetch, long rows, int spread, int first, int last, const epilogue out, const int whole,
          __m256 *sums) {
    __m256i masks[4];
    for (int v = 0; v < 4; v++) masks[v] = lanes8(columns - 8 * v);
    __m256 a[2][4];
    for (int r = 0; r < 2; r++) {
        for (int v = 0; v < 4; v++) a[r][v] = first ? start_sum(&out, r) : sums[4 * r + v];
    }
    FETCH_STATE();
#define STEP()                                                                                                  \
    do {                                                                                                        \
        __m256 x[4];                                                                                            \
        for (int v = 0; v < 4; v++) x[v] = full ? _mm256_loadu_ps(source + 8 * v) : _mm256_maskload_ps(source + 8 * v, masks[v]); \
        for (int r = 0; r < 2; r++) {                                                                           \
            const __m256 weight = _mm256_broadcast_ss(w + r);                                                   \
            for (int v = 0; v < 4; v++) a[r][v] = _mm256_fmadd_ps(weight, x[v], a[r][v]);                      \
        }                                                                                                       \
        w += PANEL, source += x_pitch;                                                                          \
    } while (0)
    STEPS();
#undef STEP
    for (int r = 0; r < 2; r++) {
        for (int v = 0; v < 4; v++) {
            if (!last) sums[4 * r + v] = a[r][v];
            else if (r < out.rows) store_sum(&out, r, v, a[r][v], whole);
        }
    }
}
#undef FETCH_AHEAD
#undef FETCH_STATE
#undef STEPS

/// One row (a Linear layer at batch 1) against the tile's 32 columns: the panel's other seven rows are zeros, and
/// their products would bind a matrix-vector product by the multipliers instead of memory. Even and odd steps have
/// their own sums, so that no add waits for the one before.
PG_AVX2 static inline __attribute__((always_inline)) void
single_row(const float *w, int k, const float *source, long x_pitch, const int full, long columns, int row, float *y,
           int n, int n0, const float *bias, const float *column_bias, const float *bounds,
           long ahead, int prefetch) {
    const __m256i m0 = lanes8(columns), m1 = lanes8(columns - 8), m2 = lanes8(columns - 16), m3 = lanes8(columns - 24);
#define LOAD(at, offset, mask) (full ? _mm256_loadu_ps((at) + (offset)) : _mm256_maskload_ps((at) + (offset), mask))
    __m256 e0 = _mm256_setzero_ps(), e1 = e0, e2 = e0, e3 = e0, o0 = e0, o1 = e0, o2 = e0, o3 = e0;
    int kk = 0;
    for (; kk + 1 < k; kk += 2, w += 2 * PANEL, source += 2 * x_pitch) {
        if (prefetch) {
            _mm_prefetch((const char *)(source + ahead), _MM_HINT_T0);
            _mm_prefetch((const char *)(source + ahead + 16), _MM_HINT_T0);
            _mm_prefetch((const char *)(source + ahead + x_pitch), _MM_HINT_T0);
            _mm_prefetch((const char *)(source + ahead + x_pitch + 16), _MM_HINT_T0);
        }
        const __m256 v0 = _mm256_broadcast_ss(w), v1 = _mm256_broadcast_ss(w + PANEL);
        const float *next = source + x_pitch;
        e0 = _mm256_fmadd_ps(v0, LOAD(source, 0, m0), e0);
        e1 = _mm256_fmadd_ps(v0, LOAD(source, 8, m1), e1);
        e2 = _mm256_fmadd_ps(v0, LOAD(source, 16, m2), e2);
        e3 = _mm256_fmadd_ps(v0, LOAD(source, 24, m3), e3);
        o0 = _mm256_fmadd_ps(v1, LOAD(next, 0, m0), o0);
        o1 = _mm256_fmadd_ps(v1, LOAD(next, 8, m1), o1);
        o2 = _mm256_fmadd_ps(v1, LOAD(next, 16, m2), o2);
        o3 = _mm256_fmadd_ps(v1, LOAD(next, 24, m3), o3);
    }
    if (kk < k) {
        const __m256 v0 = _mm256_broadcast_ss(w);
        e0 = _mm256_fmadd_ps(v0, LOAD(source, 0, m0), e0);
        e1 = _mm256_fmadd_ps(v0, LOAD(source, 8, m1), e1);
        e2 = _mm256_fmadd_ps(v0, LOAD(source, 16, m2), e2);
        e3 = _mm256_fmadd_ps(v0, LOAD(source, 24, m3), e3);
    }
#undef LOAD
    const float b = bias ? bias[row] : 0.0f;
    float *out = y + (long)row * n + n0;
    const __m256 sums[4] = {_mm256_add_ps(e0, o0), _mm256_add_ps(e1, o1), _mm256_add_ps(e2, o2), _mm256_add_ps(e3, o3)};
    for (int v = 0; v < 4; v++) {
        const long remaining = columns - 8 * v;
        if (remaining <= 0) break;
        store8(out + 8 * v, finish(sums[v], b, column_biases(column_bias, n0 + 8 * v, remaining), bounds), remaining);
    }
}

/// A panel and a tile: rows 0-5 as two blocks of 16 columns, rows 6 and 7 as one of 32 (a panel of one or two rows:
/// that one alone). `full`: every load is a whole vector; `whole`: every store is; constants at each call.
PG_AVX2 static inline __attribute__((always_inline)) void
panel_tile(const float *w, int m, int k, const float *source, long x_pitch, const int full, const int whole, long columns,
           int row0, float *y, int n, int n0, const float *bias, const float *column_bias, const float *bounds, long ahead,
           int prefetch, int stream) {
    const int rows = m - row0 < PANEL ? m - row0 : PANEL;
    if (rows == 1) {
        single_row(w, k, source, x_pitch, full, columns, row0, y, n, n0, bias, column_bias, bounds, ahead, prefetch);
        return;
    }
    // K_CHUNK steps at a time, each block in turn. With `prefetch` (the first panel to read this tile), where the
    // next tile follows this one in memory (a `stream`: a Linear layer's packed weights), the blocks fetch the next
    // chunk between them, a share each. Else the first block fetches the same rows `ahead` floats on (the next tile
    // of a convolution's planes).
    __m256 six[2][12], two[8];
    const int halves = rows <= 2 ? 0 : columns > 16 ? 2 : 1, tail_row = rows <= 2 ? 0 : 6, has_tail = rows <= 2 || rows > 6;
    const int blocks = halves + has_tail;
    epilogue outs[3];
    for (int block = 0; block < blocks; block++) {
        const int tail = block >= halves, first_row = row0 + (tail ? tail_row : 0);
        const long column = n0 + (tail ? 0 : 16 * block), width = tail ? columns : columns - 16 * block;
        epilogue *e = &outs[block];
        *e = (epilogue){.y = y + (long)first_row * n + column, .n = n, .columns = width, .bounds = bounds,
                        .column_bias = column_bias ? column_bias + column : NULL,
                        .rows = (m - first_row < (tail ? 2 : 6)) ? m - first_row : (tail ? 2 : 6), .bias = bias ? bias + first_row : NULL};
    }
    for (int k0 = 0; k0 < k; k0 += K_CHUNK) {
        const int steps = k - k0 < K_CHUNK ? k - k0 : K_CHUNK, last = k0 + steps >= k;
        const float *chunk = source + (long)k0 * x_pitch, *weights = w + (long)k0 * PANEL;
        for (int block = 0; block < blocks; block++) {
            const float *fetch = NULL;
            long fetch_rows = 0;
            const int spread = stream && prefetch == 1;
            if (stream && prefetch) {
                fetch_rows = (K_CHUNK + blocks - 1) / blocks;
                fetch = chunk + (K_CHUNK + block * fetch_rows) * x_pitch;
            } else if (prefetch && block == 0) {
                fetch = chunk + ahead;
                fetch_rows = steps;
            }
            if (block < halves) {
                block6x16(weights, steps, chunk + 16 * block, x_pitch, full, columns - 16 * block, block == 0, fetch, fetch_rows,
                          spread, k0 == 0, last, outs[block], whole, six[block]);
            } else {
                block2x32(weights + tail_row, steps, chunk, x_pitch, full, columns, block == 0, fetch, fetch_rows, spread,
                          k0 == 0, last, outs[block], whole, two);
            }
        }
    }
}

PG_AVX2 void pg_copy_tiles_avx2(const float *x, int k, int n, long x_pitch, int n0, int end, float *tiles) {
    for (int t0 = n0; t0 < end; t0 += TILE) {
        const long columns = n - t0 < TILE ? n - t0 : TILE;
        for (int kk = 0; kk < k; kk++, tiles += TILE) {
            const float *row = x + (long)kk * x_pitch + t0;
            // The same row of the next tile, which the prefetcher, among k rows a plane apart, fetches too late.
            _mm_prefetch((const char *)(row + TILE), _MM_HINT_T0);
            _mm_prefetch((const char *)(row + TILE + 16), _MM_HINT_T0);
            for (int v = 0; v < 4; v++) _mm256_store_ps(tiles + 8 * v, load8(row + 8 * v, columns - 8 * v));
        }
    }
}

/// Packed tiles this deep or less (32 KB, L1's size, or less) go through blocks that each take all of k in one loop
/// (avx2_block.h), the first fetching the next tile as it goes: the tile stays in L1 for the other two, and no sums are
/// kept between chunks. ViT's Linear layers at batch 8 (k = 192) and ConvNeXt's from 96 channels: 1-7 % faster.
enum { WHOLE_K = 256 };
PG_AVX2_BLOCK(6, 2)
PG_AVX2_BLOCK(2, 4)

PG_AVX2 void pg_panel_tile_avx2(const float *packed, int m, int k, const float *x, long x_pitch, long tile_stride, long ahead,
                                int prefetch, float *y, int n, int p, int n0, const float *bias, const float *column_bias,
                                int activation, float low_bound, float high_bound) {
    // The activation as bounds to clamp to, so that storing needs no branch per vector.
    float bounds[2];
    pg_activation_bounds(activation, low_bound, high_bound, bounds);
    const long columns = n - n0 < TILE ? n - n0 : TILE;
    const float *w = packed + (long)p * k * PANEL;
    const float *source = x + (long)(n0 / TILE) * tile_stride;
    const int row0 = p * PANEL;
    // Rows of the tile one after another (packed or copied): the next chunk follows this one in memory, and each row
    // has all 32 floats (zeros past n), so that even the last tile loads whole vectors.
    const int stream = x_pitch == TILE;
    // A packed or copied tile of all 32 columns and at most WHOLE_K rows: three blocks, each over all of k.
    if (stream && columns == TILE && k <= WHOLE_K && m - row0 > 2) {
        const int rows = m - row0 < PANEL ? m - row0 : PANEL;
        const float *b = bias ? bias + row0 : NULL, *cb = column_bias ? column_bias + n0 : NULL;
        const float *next = prefetch ? source + tile_stride : NULL;
        float *out = y + (long)row0 * n + n0;
        pg_block_6x2(w, k, source, TILE, next, (pg_block_output){out, n, rows, 16, b, cb, bounds});
        pg_block_6x2(w, k, source + 16, TILE, NULL, (pg_block_output){out + 16, n, rows, 16, b, cb ? cb + 16 : NULL, bounds});
        if (rows > 6) pg_block_2x4(w + 6, k, source, TILE, NULL, (pg_block_output){out + 6 * n, n, rows - 6, TILE, b ? b + 6 : NULL, cb, bounds});
    } else if (stream && columns <= 24 && m - row0 > 1) {
        // A packed or copied last tile, narrow: blocks as wide as it is.
        pg_narrow_tile_avx2(packed, m, k, x, tile_stride, y, n, p, n0, bias, column_bias, bounds);
    } else if (columns == TILE) {
        // Whole tiles (the common case) load and store whole vectors; a packed or copied last tile loads them whole.
        panel_tile(w, m, k, source, x_pitch, 1, 1, columns, row0, y, n, n0, bias, column_bias, bounds, ahead, prefetch, stream);
    } else if (stream) {
        panel_tile(w, m, k, source, x_pitch, 1, 0, columns, row0, y, n, n0, bias, column_bias, bounds, ahead, prefetch, stream);
    } else {
        panel_tile(w, m, k, source, x_pitch, 0, 0, columns, row0, y, n, n0, bias, column_bias, bounds, ahead, prefetch, stream);
    }
}
#endif
