// OpenBLAS, loaded at first use rather than linked: a machine without it (a release bundle, the image) still runs
// every model, its products on matrix_builtin.c's loops (as with PLANTGUIDE_BLAS=builtin); and its kernels can be
// chosen before it initialises, as Debian's OpenBLAS 0.3.21 does not recognise AVX-512 on AMD Zen 4 and would fall
// back to its Haswell (AVX2) kernels. When the kernels run AVX-512 (the CPU has the subsets SkylakeX kernels need)
// and OPENBLAS_CORETYPE is not set, it is set to SKYLAKEX, and to HASWELL or NEHALEM where PLANTGUIDE_INFERENCE_ISA
// forces AVX2 or the portable path; an explicit OPENBLAS_CORETYPE always wins. OPENBLAS_NUM_THREADS defaults to 1:
// PlantGuide runs one model per worker thread, and OpenBLAS's idle pool threads, spinning, slow the core's other
// hyperthread.
#include "inference_kernels.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112 };

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*sgemv_fn)(int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*threads_fn)(int);
typedef char *(*corename_fn)(void);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static sgemm_fn sgemm;
static sgemv_fn sgemv;
static threads_fn set_threads;
static corename_fn corename;

static void load(void) {
#if defined(__x86_64__)
    // The kernels that match the instruction set in use: with PLANTGUIDE_INFERENCE_ISA forcing AVX2 (or the
    // portable path), OpenBLAS keeps to it too, as on a CPU without AVX-512 (or AVX).
    static const char *const cores[] = {[PG_ISA_PORTABLE] = "NEHALEM", [PG_ISA_AVX2] = "HASWELL", [PG_ISA_AVX512] = "SKYLAKEX"};
    if (!getenv("OPENBLAS_CORETYPE") && (pg_isa() == PG_ISA_AVX512 || pg_isa() < pg_cpu_isa())) {
        setenv("OPENBLAS_CORETYPE", cores[pg_isa()], 0);
    }
#endif
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
    const char *choice = getenv("PLANTGUIDE_BLAS");
    if (choice && strcmp(choice, "builtin") == 0) return;
    void *library = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    sgemm = (sgemm_fn)dlsym(library, "cblas_sgemm");
    sgemv = (sgemv_fn)dlsym(library, "cblas_sgemv");
    set_threads = (threads_fn)dlsym(library, "openblas_set_num_threads");
    corename = (corename_fn)dlsym(library, "openblas_get_corename");
    if (!(sgemm && sgemv && set_threads)) sgemm = NULL, sgemv = NULL, set_threads = NULL;
}

int pg_blas_load(void) {
    pthread_once(&once, load);
    return sgemm && sgemv && set_threads;
}

const char *pg_blas_core(void) {
    if (!pg_blas_load()) return "none";
    return corename ? corename() : "unknown";
}

void pg_blas_set_threads(int count) {
    if (pg_blas_load()) set_threads(count);
}

void pg_sgemm(int transpose_a, int transpose_b, int m, int n, int k, float alpha, const float *a, int lda,
              const float *b, int ldb, float beta, float *c, int ldc) {
    if (!pg_blas_load()) {
        pg_builtin_sgemm(transpose_a, transpose_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    sgemm(ROW_MAJOR, transpose_a ? TRANS : NO_TRANS, transpose_b ? TRANS : NO_TRANS, m, n, k, alpha, a, lda, b, ldb,
          beta, c, ldc);
}

void pg_sgemv(int transpose, int rows, int columns, float alpha, const float *a, int lda, const float *x, float beta,
              float *y) {
    if (!pg_blas_load()) {
        pg_builtin_sgemv(transpose, rows, columns, alpha, a, lda, x, beta, y);
        return;
    }
    sgemv(ROW_MAJOR, transpose ? TRANS : NO_TRANS, rows, columns, alpha, a, lda, x, 1, beta, y, 1);
}
