// The matrix products' own C loops, for a machine without OpenBLAS (or with PLANTGUIDE_BLAS=builtin): the default
// model's layers on the AVX2 and AVX-512 paths never come here (their convolutions and Linear layers run the packed
// kernels), so an image or a release bundle need not carry OpenBLAS's 43 MB for them. What does come here
// (attention's batched products, every product on the portable path) is correct but slower than OpenBLAS.
// Row-major, as pg_sgemm and pg_sgemv: the inner loops walk contiguous memory so that the compiler vectorises them.
#include "inference_kernels.h"

#include <string.h>

void pg_builtin_sgemm(int transpose_a, int transpose_b, int m, int n, int k, float alpha, const float *a, int lda,
                      const float *b, int ldb, float beta, float *c, int ldc) {
    for (int i = 0; i < m; i++) {
        float *row = c + (long)i * ldc;
        if (beta == 0) {
            memset(row, 0, sizeof(float) * (size_t)n);
        } else if (beta != 1) {
            for (int j = 0; j < n; j++) row[j] *= beta;
        }
        if (!transpose_b) {
            // row += alpha·a[i][p]·B[p] for each p: a scaled row of B added to the row of C.
            for (int p = 0; p < k; p++) {
                const float scale = alpha * (transpose_a ? a[(long)p * lda + i] : a[(long)i * lda + p]);
                const float *source = b + (long)p * ldb;
                for (int j = 0; j < n; j++) row[j] += scale * source[j];
            }
        } else {
            // B given transposed (n × k): each element a dot product of A's row and B's row.
            for (int j = 0; j < n; j++) {
                const float *column = b + (long)j * ldb;
                float sum = 0;
                if (transpose_a) {
                    for (int p = 0; p < k; p++) sum += a[(long)p * lda + i] * column[p];
                } else {
                    const float *source = a + (long)i * lda;
                    for (int p = 0; p < k; p++) sum += source[p] * column[p];
                }
                row[j] += alpha * sum;
            }
        }
    }
}

void pg_builtin_sgemv(int transpose, int rows, int columns, float alpha, const float *a, int lda, const float *x,
                      float beta, float *y) {
    if (!transpose) {
        for (int i = 0; i < rows; i++) {
            const float *row = a + (long)i * lda;
            float sum = 0;
            for (int j = 0; j < columns; j++) sum += row[j] * x[j];
            y[i] = alpha * sum + (beta == 0 ? 0 : beta * y[i]);
        }
        return;
    }
    // y[columns] = alpha·Aᵀx + beta·y: rows of A, scaled by x, added up.
    for (int j = 0; j < columns; j++) y[j] = beta == 0 ? 0 : beta * y[j];
    for (int i = 0; i < rows; i++) {
        const float scale = alpha * x[i];
        const float *row = a + (long)i * lda;
        for (int j = 0; j < columns; j++) y[j] += scale * row[j];
    }
}
