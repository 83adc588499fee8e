// Element-wise erf, GELU and the exponentials of a softmax row, written without branches or libm calls (but
// GELU's rare tail) so that the compiler vectorizes them (one copy per instruction set, isa_variants.h): glibc's
// erff and expf run one element at a time, which made Erf a quarter of a ViT's time.
//
// erf: Eigen's rational approximation on [-4, 4] (beyond, erf is ±1 in float); at most 4.2e-7 from the exact
// value (GELU's far negative tail, where that would be a large relative error, takes libm's erfc).
// exp: Cephes' expf, a degree-5 polynomial on [-ln2/2, ln2/2] scaled by 2^n; about 1 ulp.
#include "isa_variants.h"

#include <math.h>

static inline float erf_approximation(float a) {
    const float x = a < -4.f ? -4.f : (a > 4.f ? 4.f : a);
    const float x2 = x * x;
    float p = -2.72614225801306e-10f;
    p = p * x2 + 2.77068142495902e-08f;
    p = p * x2 + -2.10102402082508e-06f;
    p = p * x2 + -5.69250639462346e-05f;
    p = p * x2 + -7.34990630326855e-04f;
    p = p * x2 + -2.95459980854025e-03f;
    p = p * x2 + -1.60960333262415e-02f;
    float q = -1.45660718464996e-05f;
    q = q * x2 + -2.13374055278905e-04f;
    q = q * x2 + -1.68282697438203e-03f;
    q = q * x2 + -7.37332916720468e-03f;
    q = q * x2 + -1.42647390514189e-02f;
    return x * p / q;
}

static inline float exp_approximation(float x) {
    x = x < -87.3f ? -87.3f : (x > 88.7f ? 88.7f : x);
    const float n = __builtin_roundevenf(x * 1.44269504088896341f);
    const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.f;
    union { int i; float f; } scale = { .i = ((int)n + 127) << 23 };
    return p * scale.f;
}

/// The sum of `count` floats, in sixteen partial sums, which vectorise where one running sum (a strict order of
/// additions) cannot.
static inline __attribute__((always_inline)) float sum_of(const float *x, long count) {
    float partial[16] = {0};
    long i = 0;
    for (; i + 16 <= count; i += 16) {
        for (int j = 0; j < 16; j++) partial[j] += x[i + j];
    }
    float sum = 0.f;
    for (; i < count; i++) sum += x[i];
    for (int j = 0; j < 16; j++) sum += partial[j];
    return sum;
}

PG_BODY void pg_erf_body(const float *x, float *y, long count) {
    for (long i = 0; i < count; i++) y[i] = erf_approximation(x[i]);
}
PG_ISA_VARIANTS_VOID(pg_erf, (const float *x, float *y, long count), (x, y, count))

PG_BODY void pg_gelu_body(const float *x, float *y, long count) {
    for (long i = 0; i < count; i++) y[i] = 0.5f * x[i] * (1.f + erf_approximation(x[i] * 0.70710678118654752f));
    // Below -3, 1 + erf(x/√2) is under 0.003 and the approximation's absolute error would be a large part of it:
    // those few elements take libm's erfc.
    for (long i = 0; i < count; i++) {
        if (x[i] < -3.f) y[i] = 0.5f * x[i] * erfcf(-x[i] * 0.70710678118654752f);
    }
}
PG_ISA_VARIANTS_VOID(pg_gelu, (const float *x, float *y, long count), (x, y, count))

PG_BODY float pg_exp_shifted_body(const float *x, float *y, long count, float shift) {
    for (long i = 0; i < count; i++) y[i] = exp_approximation(x[i] - shift);
    return sum_of(y, count);
}
PG_ISA_VARIANTS(float, pg_exp_shifted, (const float *x, float *y, long count, float shift), (x, y, count, shift))

PG_BODY void pg_softmax_rows_body(const float *x, float *y, long rows, long length) {
    for (long r = 0; r < rows; r++) {
        const float *in = x + r * length;
        float *out = y + r * length;
        float partial[16];
        for (int j = 0; j < 16; j++) partial[j] = -INFINITY;
        long i = 0;
        for (; i + 16 <= length; i += 16) {
            for (int j = 0; j < 16; j++) partial[j] = in[i + j] > partial[j] ? in[i + j] : partial[j];
        }
        float largest = -INFINITY;
        for (; i < length; i++) largest = in[i] > largest ? in[i] : largest;
        for (int j = 0; j < 16; j++) largest = partial[j] > largest ? partial[j] : largest;
        const float scale = 1.f / pg_exp_shifted_body(in, out, length, largest);
        for (i = 0; i < length; i++) out[i] *= scale;
    }
}
/// The portable path's softmax (softmax_rows.c has AVX-512's and AVX2's).
void pg_softmax_rows_portable(const float *x, float *y, long rows, long length) { pg_softmax_rows_body(x, y, rows, length); }

PG_BODY void pg_layer_norm_rows_body(const float *x, float *y, long rows, long length, const float *scale,
                                     const float *bias, float epsilon, float *means, float *inverse_deviations) {
    for (long r = 0; r < rows; r++) {
        const float *in = x + r * length;
        float *out = y + r * length;
        const float mean = sum_of(in, length) / (float)length;
        // Sixteen partial sums of squares, as in sum_of, so that this pass vectorises too.
        float squares[16] = {0};
        long i = 0;
        for (; i + 16 <= length; i += 16) {
            for (int j = 0; j < 16; j++) { const float d = in[i + j] - mean; squares[j] += d * d; }
        }
        float variance = 0.f;
        for (; i < length; i++) { const float d = in[i] - mean; variance += d * d; }
        for (int j = 0; j < 16; j++) variance += squares[j];
        const float inverse = 1.f / sqrtf(variance / (float)length + epsilon);
        for (i = 0; i < length; i++) out[i] = (in[i] - mean) * inverse * scale[i] + bias[i];
        if (means) means[r] = mean;
        if (inverse_deviations) inverse_deviations[r] = inverse;
    }
}
PG_ISA_VARIANTS_VOID(pg_layer_norm_rows,
                     (const float *x, float *y, long rows, long length, const float *scale, const float *bias,
                      float epsilon, float *means, float *inverse_deviations),
                     (x, y, rows, length, scale, bias, epsilon, means, inverse_deviations))

PG_BODY void pg_mean_rows_body(const float *x, float *y, long rows, long length) {
    for (long r = 0; r < rows; r++) y[r] = sum_of(x + r * length, length) / (float)length;
}
PG_ISA_VARIANTS_VOID(pg_mean_rows, (const float *x, float *y, long rows, long length), (x, y, rows, length))
