// Matrix products with one operand packed once at load, on AVX-512: Y[M×N] = W[M×K]·X[K×N] plus a per-row and a
// per-column bias and an activation. Convolutions pack their weights as W and stream NCHW planes as X (N = output
// pixels, contiguous); Linear layers pack their activations as W on each run and their weights once as X, in tiles
// of 32 columns, each tile's K rows contiguous, so that a huge layer's weights stream from memory in one pass.
// OpenBLAS copies (packs) its operands on every call and, where OPENBLAS_CORETYPE pins it to AVX2, leaves AVX-512
// unused; this kernel packs the weights once and uses the whole vector width. Callers check pg_has_avx512() first.
#include "inference_kernels.h"

#if defined(__x86_64__)
#include "avx512_helpers.h"
#endif

enum { PANEL = 8, TILE = 32, AHEAD = 32, STREAM_AHEAD = 64 };

/// A 1 MB L2 (Zen 4 and 5, Ice Lake), and what of it an operand may fill beside the other's stream.
enum { L2 = 1024 * 1024, L2_SHARE = L2 / 2 };

/// Products this deep or less store their tiles so often that the order of their stores decides their speed.
enum { SHALLOW = 64 };

int pg_has_avx512(void) {
#if defined(__x86_64__)
    // Asked per plane by the depthwise kernels: the CPU is probed once (-1 until then; every thread finds the same).
    static int known = -1;
    int has = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (has < 0) {
        __builtin_cpu_init();
        has = __builtin_cpu_supports("avx512f") ? 1 : 0;
        __atomic_store_n(&known, has, __ATOMIC_RELAXED);
    }
    return has;
#else
    return 0;
#endif
}

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

#if defined(__x86_64__)
__attribute__((target("avx512f")))
static inline __m512 finish(__m512 value, float bias, __m512 column_bias, int activation, __m512 low, __m512 high) {
    return activate(_mm512_add_ps(_mm512_add_ps(value, _mm512_set1_ps(bias)), column_bias), activation, low, high);
}

/// One panel of 8 rows of y against one tile of 32 columns (`columns` of them real), over all of k.
__attribute__((target("avx512f")))
static inline void panel_tile(const float *packed, int m, int k, const float *x, long x_pitch, long tile_stride,
                              long ahead, int prefetch, float *y, int n, int p, int n0, const float *bias,
                              const float *column_bias, int activation, __m512 low, __m512 high) {
    const int columns = n - n0 < TILE ? n - n0 : TILE;
    const __mmask16 first = first_lanes(columns), second = first_lanes(columns - 16);
    const float *w = packed + (long)p * k * PANEL;
    const float *source = x + (long)(n0 / TILE) * tile_stride;
    if (m - p * PANEL == 1) {
        // One row (a Linear layer at batch 1): the other seven of the panel are zeros, and their products would
        // make a matrix-vector product, which memory bounds, bound by the multiplier instead. Two sums per half
        // tile, even and odd steps, so that no add waits for the one before.
        __m512 even0 = _mm512_setzero_ps(), even1 = even0, odd0 = even0, odd1 = even0;
        int kk = 0;
        for (; kk + 1 < k; kk += 2, w += 2 * PANEL, source += 2 * x_pitch) {
            if (prefetch) {
                _mm_prefetch((const char *)(source + ahead), _MM_HINT_T0);
                _mm_prefetch((const char *)(source + ahead + 16), _MM_HINT_T0);
                _mm_prefetch((const char *)(source + ahead + x_pitch), _MM_HINT_T0);
                _mm_prefetch((const char *)(source + ahead + x_pitch + 16), _MM_HINT_T0);
            }
            const __m512 v0 = _mm512_set1_ps(w[0]), v1 = _mm512_set1_ps(w[PANEL]);
            even0 = _mm512_fmadd_ps(v0, _mm512_maskz_loadu_ps(first, source), even0);
            even1 = _mm512_fmadd_ps(v0, _mm512_maskz_loadu_ps(second, source + 16), even1);
            odd0 = _mm512_fmadd_ps(v1, _mm512_maskz_loadu_ps(first, source + x_pitch), odd0);
            odd1 = _mm512_fmadd_ps(v1, _mm512_maskz_loadu_ps(second, source + x_pitch + 16), odd1);
        }
        if (kk < k) {
            const __m512 v0 = _mm512_set1_ps(w[0]);
            even0 = _mm512_fmadd_ps(v0, _mm512_maskz_loadu_ps(first, source), even0);
            even1 = _mm512_fmadd_ps(v0, _mm512_maskz_loadu_ps(second, source + 16), even1);
        }
        const int row = p * PANEL;
        const float b = bias ? bias[row] : 0.0f;
        const __m512 column0 = column_bias ? _mm512_maskz_loadu_ps(first, column_bias + n0) : _mm512_setzero_ps();
        const __m512 column1 = column_bias ? _mm512_maskz_loadu_ps(second, column_bias + n0 + 16) : _mm512_setzero_ps();
        float *out = y + (long)row * n + n0;
        _mm512_mask_storeu_ps(out, first, finish(_mm512_add_ps(even0, odd0), b, column0, activation, low, high));
        if (second) _mm512_mask_storeu_ps(out + 16, second, finish(_mm512_add_ps(even1, odd1), b, column1, activation, low, high));
        return;
    }
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    __m512 b0 = a0, b1 = a0, b2 = a0, b3 = a0, b4 = a0, b5 = a0, b6 = a0, b7 = a0;
    for (int kk = 0; kk < k; kk++, w += PANEL, source += x_pitch) {
        if (prefetch) {
            _mm_prefetch((const char *)(source + ahead), _MM_HINT_T0);
            _mm_prefetch((const char *)(source + ahead + 16), _MM_HINT_T0);
        }
        _mm_prefetch((const char *)(w + AHEAD * PANEL), _MM_HINT_T0);
        const __m512 x0 = _mm512_maskz_loadu_ps(first, source);
        const __m512 x1 = _mm512_maskz_loadu_ps(second, source + 16);
        __m512 v;
        v = _mm512_set1_ps(w[0]); a0 = _mm512_fmadd_ps(v, x0, a0); b0 = _mm512_fmadd_ps(v, x1, b0);
        v = _mm512_set1_ps(w[1]); a1 = _mm512_fmadd_ps(v, x0, a1); b1 = _mm512_fmadd_ps(v, x1, b1);
        v = _mm512_set1_ps(w[2]); a2 = _mm512_fmadd_ps(v, x0, a2); b2 = _mm512_fmadd_ps(v, x1, b2);
        v = _mm512_set1_ps(w[3]); a3 = _mm512_fmadd_ps(v, x0, a3); b3 = _mm512_fmadd_ps(v, x1, b3);
        v = _mm512_set1_ps(w[4]); a4 = _mm512_fmadd_ps(v, x0, a4); b4 = _mm512_fmadd_ps(v, x1, b4);
        v = _mm512_set1_ps(w[5]); a5 = _mm512_fmadd_ps(v, x0, a5); b5 = _mm512_fmadd_ps(v, x1, b5);
        v = _mm512_set1_ps(w[6]); a6 = _mm512_fmadd_ps(v, x0, a6); b6 = _mm512_fmadd_ps(v, x1, b6);
        v = _mm512_set1_ps(w[7]); a7 = _mm512_fmadd_ps(v, x0, a7); b7 = _mm512_fmadd_ps(v, x1, b7);
    }
    const __m512 column0 = column_bias ? _mm512_maskz_loadu_ps(first, column_bias + n0) : _mm512_setzero_ps();
    const __m512 column1 = column_bias ? _mm512_maskz_loadu_ps(second, column_bias + n0 + 16) : _mm512_setzero_ps();
    const __m512 first_half[PANEL] = {a0, a1, a2, a3, a4, a5, a6, a7};
    const __m512 second_half[PANEL] = {b0, b1, b2, b3, b4, b5, b6, b7};
    for (int r = 0; r < PANEL; r++) {
        const int row = p * PANEL + r;
        if (row >= m) break;
        const float b = bias ? bias[row] : 0.0f;
        float *out = y + (long)row * n + n0;
        _mm512_mask_storeu_ps(out, first, finish(first_half[r], b, column0, activation, low, high));
        if (second) _mm512_mask_storeu_ps(out + 16, second, finish(second_half[r], b, column1, activation, low, high));
    }
}

__attribute__((target("avx512f")))
void pg_packed_gemm(const float *packed, int m, int k, const float *x, int n, long x_pitch, long tile_stride, float *y,
                    const float *bias, const float *column_bias, int activation, float low_bound, float high_bound) {
    const int panels = (m + PANEL - 1) / PANEL;
    const __m512 low = _mm512_set1_ps(low_bound), high = _mm512_set1_ps(high_bound);
    // The first panel of a tile brings the tile of x in; later ones find it in cache. As it goes, it fetches ahead
    // what comes next, which the prefetcher alone fetches too late: where the next tile follows this one in memory
    // (packed weights, a huge layer's stream from memory), the rows `AHEAD` steps on; where tiles are columns of
    // the same rows (the planes of a convolution, often just written by the layer before and out of L2), the same
    // row of the next tile.
    const long ahead = tile_stride == (long)k * x_pitch ? STREAM_AHEAD * x_pitch : tile_stride;
    const long x_bytes = (long)k * (tile_stride == TILE ? n : ((n + TILE - 1) / TILE) * TILE) * 4;
    const long packed_bytes = (long)panels * PANEL * k * 4;
    if ((x_bytes <= L2_SHARE && packed_bytes > L2) || (x_bytes <= L2 && k <= SHALLOW)) {
        // Each panel of weights against every tile of x, which stays in L2, where the other order reads the
        // weights again for every tile or writes all of y's rows at once. Two cases: more weights than L2 holds
        // against few columns (a 1×1 convolution on a 7×7 plane: each panel is read from L3 once), and a shallow
        // product (k ≤ SHALLOW, an expanding 1×1 convolution: 16 → 96 channels of 112×112), where a tile's stores
        // come every few steps and eight rows written in order are eight streams, not 96 (4.1 → 3.3 ms at batch 8).
        for (int p = 0; p < panels; p++) {
            for (int n0 = 0; n0 < n; n0 += TILE) {
                panel_tile(packed, m, k, x, x_pitch, tile_stride, ahead, p == 0, y, n, p, n0, bias, column_bias, activation, low, high);
            }
        }
        return;
    }
    for (int n0 = 0; n0 < n; n0 += TILE) {
        for (int p = 0; p < panels; p++) {
            panel_tile(packed, m, k, x, x_pitch, tile_stride, ahead, p == 0, y, n, p, n0, bias, column_bias, activation, low, high);
        }
    }
}
#else
void pg_packed_gemm(const float *packed, int m, int k, const float *x, int n, long x_pitch, long tile_stride, float *y,
                    const float *bias, const float *column_bias, int activation, float low_bound, float high_bound) {
    (void)packed; (void)m; (void)k; (void)x; (void)n; (void)x_pitch; (void)tile_stride; (void)y; (void)bias; (void)column_bias; (void)activation;
    (void)low_bound; (void)high_bound;
}
#endif
