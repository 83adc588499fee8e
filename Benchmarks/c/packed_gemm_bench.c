// Times pg_packed_gemm, the executor's matrix product, on the shapes the benchmark models give it, on the kernel
// path PLANTGUIDE_INFERENCE_ISA forces (else the CPU's best): a convolution's per image (weights packed once, its
// input planes as x, a bias and Clip(0, 6)), and a Linear layer's at batch 8 (the activations packed on every run,
// as the executor does, against weights packed once, a column bias). Its input is warm in cache: the kernel's own
// speed, not memory's. One JSON line per shape; Scripts/bench kernels prints them as a table.
//
//   cc -O3 -I Sources/CInferenceKernels/include -I Sources/CInferenceKernels Benchmarks/c/packed_gemm_bench.c \
//      Sources/CInferenceKernels/*.c -ldl -lm -o packed_gemm_bench
#include "inference_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { RUNS = 25 };

typedef struct {
    const char *layer;
    int m, k, n, linear;
} shape;

static const shape shapes[] = {
    {"MobileNetV2 stem 3×3/2 (im2col)", 32, 27, 12544, 0},
    {"MobileNetV2 1×1 32→16 @112", 16, 32, 12544, 0},
    {"MobileNetV2 1×1 16→96 @112", 96, 16, 12544, 0},
    {"MobileNetV2 1×1 96→24 @56", 24, 96, 3136, 0},
    {"MobileNetV2 1×1 24→144 @56", 144, 24, 3136, 0},
    {"MobileNetV2 1×1 144→32 @28", 32, 144, 784, 0},
    {"MobileNetV2 1×1 32→192 @28", 192, 32, 784, 0},
    {"MobileNetV2 1×1 384→96 @14", 96, 384, 196, 0},
    {"MobileNetV2 1×1 96→576 @14", 576, 96, 196, 0},
    {"MobileNetV2 1×1 960→320 @7", 320, 960, 49, 0},
    {"MobileNetV2 1×1 320→1280 @7", 1280, 320, 49, 0},
    {"ViT-tiny qkv, batch 8", 1576, 192, 576, 1},
    {"ViT-tiny fc1, batch 8", 1576, 192, 768, 1},
    {"ViT-tiny fc2, batch 8", 1576, 768, 192, 1},
    {"ConvNeXt-tiny stage 3 pw1, batch 8", 1568, 384, 1536, 1},
    {"ConvNeXt-tiny stage 3 pw2, batch 8", 1568, 1536, 384, 1},
};

static double seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static int ascending(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/// `count` floats in [-1, 1), the same on every run.
static float *filled(long count, unsigned seed) {
    float *values = aligned_alloc(64, (size_t)(count + 16) * sizeof(float));
    if (!values) {
        fprintf(stderr, "packed_gemm_bench: out of memory\n");
        exit(1);
    }
    for (long i = 0; i < count; i++) {
        seed = seed * 1103515245u + 12345u;
        values[i] = (float)(seed >> 8) / (float)(1 << 24) * 2.0f - 1.0f;
    }
    return values;
}

int main(void) {
    const char *isa = pg_isa_name(pg_isa());
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const shape c = shapes[s];
        float *w = filled((long)c.m * c.k, 1), *x = filled((long)c.k * c.n, 2), *y = filled((long)c.m * c.n, 3);
        float *bias = filled(c.linear ? c.n : c.m, 4);
        float *packed_w = filled(pg_packed_weights_size(c.m, c.k), 5);
        float *packed_x = c.linear ? filled(pg_packed_columns_size(c.k, c.n), 6) : NULL;
        if (c.linear) pg_pack_columns(x, c.k, c.n, 0, packed_x);
        else pg_pack_weights(w, c.m, c.k, packed_w);
        double times[RUNS];
        for (int run = -3; run < RUNS; run++) {
            const double start = seconds();
            if (c.linear) {
                pg_pack_weights(w, c.m, c.k, packed_w);
                pg_packed_gemm(packed_w, c.m, c.k, packed_x, c.n, 32, 32L * c.k, y, NULL, bias, PG_ACTIVATION_NONE, 0, 0);
            } else {
                pg_packed_gemm(packed_w, c.m, c.k, x, c.n, c.n, 32, y, bias, NULL, PG_ACTIVATION_CLIP, 0, 6);
            }
            if (run >= 0) times[run] = seconds() - start;
        }
        qsort(times, RUNS, sizeof times[0], ascending);
        const double p50 = times[RUNS / 2], p90 = times[RUNS * 9 / 10];
        printf("{\"isa\": \"%s\", \"layer\": \"%s\", \"m\": %d, \"k\": %d, \"n\": %d, \"p50_us\": %.2f, \"p90_us\": %.2f, "
               "\"gflops\": %.2f}\n",
               isa, c.layer, c.m, c.k, c.n, p50 * 1e6, p90 * 1e6, 2.0 * c.m * c.k * c.n / p50 / 1e9);
        free(w);
        free(x);
        free(y);
        free(bias);
        free(packed_w);
        free(packed_x);
    }
    return 0;
}
