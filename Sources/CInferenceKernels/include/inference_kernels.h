// The native half of PlantGuideInference: SIMD kernels (packed matrix products, depthwise convolution, pooling,
// layer epilogues, transcendental functions), each for AVX-512, for AVX2 with FMA and portable, the one used chosen
// once by what the CPU has (pg_isa), and OpenBLAS's matrix products, loaded at first use (blas.c says why).
#ifndef PLANTGUIDE_INFERENCE_KERNELS_H
#define PLANTGUIDE_INFERENCE_KERNELS_H

/// The geometry of one window operation on one plane.
typedef struct {
    int height, width;            // input plane
    int out_height, out_width;    // output plane
    int kernel_y, kernel_x;
    int stride_y, stride_x;
    int dilation_y, dilation_x;
    int pad_top, pad_left;
} pg_window;

/// Floats of scratch the kernels below need for `window`: the input plane with its padding.
long pg_padded_plane_size(const pg_window *window);

/// One channel's filter (kernel_y × kernel_x weights) over one plane, plus `bias`, into `output`.
void pg_depthwise_conv2d(const pg_window *window, const float *input, const float *weights, float bias,
                         float *output, float *scratch);

/// Floats of scratch pg_depthwise3x3 needs for `window`.
long pg_depthwise3x3_scratch_size(const pg_window *window);
/// A 3×3 filter per channel over `channels` planes (dilation 1, stride_x 1 or 2), plus bias[c] (bias may be NULL),
/// then `activation` (a PG_ACTIVATION_* and its bounds), into `channels` output planes.
void pg_depthwise3x3(const pg_window *window, int channels, const float *input, const float *weights,
                     const float *bias, int activation, float low_bound, float high_bound, float *output, float *scratch);
/// pg_depthwise3x3 where the output rows are as wide as the input's (stride 1, "same" padding), without a padded
/// copy: each plane read as one row. For small planes, which a row at a time leaves mostly empty vectors.
void pg_depthwise3x3_flat(const pg_window *window, int channels, const float *input, const float *weights,
                          const float *bias, int activation, float low_bound, float high_bound, float *output);
/// The most input channels pg_conv3x3_direct takes.
enum { PG_CONV3X3_DIRECT_MAX_CHANNELS = 4 };
/// Floats of scratch pg_conv3x3_direct needs for `window` and `channels` input planes.
long pg_conv3x3_direct_scratch_size(const pg_window *window, int channels);
/// A full 3×3 convolution (group 1, dilation 1, stride 1 or 2 both ways) of at most PG_CONV3X3_DIRECT_MAX_CHANNELS
/// input planes into `filters` output planes (a multiple of 4), plus bias[f] (bias may be NULL), then `activation`:
/// an image classifier's stem, without im2col. Weights are ONNX's [filters, channels, 3, 3].
void pg_conv3x3_direct(const pg_window *window, int channels, int filters, const float *input, const float *weights,
                       const float *bias, int activation, float low_bound, float high_bound, float *output,
                       float *scratch);
/// destination[i] = source[i · stride] for i < count: a strided row of im2col.
void pg_copy_strided(const float *source, long stride, float *destination, long count);
/// Max over each window (padding never wins) of one plane into `output`.
void pg_max_pool2d(const pg_window *window, const float *input, float *output, float *scratch);

enum { PG_ACTIVATION_NONE = 0, PG_ACTIVATION_RELU = 1, PG_ACTIVATION_CLIP = 2 };

/// values[i] = activation(values[i] + bias), in place: the epilogue of convolutions and linear layers.
void pg_bias_activation(float *values, long count, float bias, int activation, float low, float high);

/// The instruction sets the kernels are written for, lowest first.
enum { PG_ISA_PORTABLE = 0, PG_ISA_AVX2 = 1, PG_ISA_AVX512 = 2 };
/// What pg_requested_isa answers when PLANTGUIDE_INFERENCE_ISA is not set, and when it names no PG_ISA_*.
enum { PG_ISA_UNSET = -1, PG_ISA_INVALID = -2 };
/// The best the CPU runs: PG_ISA_AVX512 (x86-64-v4: AVX-512 F, BW, CD, DQ, VL), PG_ISA_AVX2 (x86-64-v3: AVX2,
/// FMA) or PG_ISA_PORTABLE.
int pg_cpu_isa(void);
/// What PLANTGUIDE_INFERENCE_ISA (avx512, avx2 or portable) asks for, PG_ISA_UNSET or PG_ISA_INVALID.
int pg_requested_isa(void);
/// The set every kernel uses, decided at the first call: the requested one where it is valid and no higher than the
/// CPU's, else the CPU's.
int pg_isa(void);
/// "avx512", "avx2" or "portable": the names PLANTGUIDE_INFERENCE_ISA takes.
const char *pg_isa_name(int isa);
/// Floats pg_pack_weights writes for an m × k weight matrix.
long pg_packed_weights_size(int m, int k);
/// Packs row-major m × k weights into panels of 8 rows, k-major, zero-filled: done once per plan.
void pg_pack_weights(const float *weights, int m, int k, float *packed);
/// Floats pg_pack_columns writes for a k × n matrix.
long pg_packed_columns_size(int k, int n);
/// Packs k × n row-major b (n × k when `transposed`) into tiles of 32 columns, each k rows of 32 contiguous floats,
/// zero-filled: the x operand of pg_packed_gemm with x_pitch 32 and tile_stride 32·k.
void pg_pack_columns(const float *b, int k, int n, int transposed, float *packed);
/// y[m × n] = activation(packed·x + bias[row] + column_bias[column]), x being k rows of n floats, `x_pitch` floats
/// apart, its columns 32·t onwards starting `t·tile_stride` floats in (32 for a row-major x); either bias may be
/// NULL. activation is a PG_ACTIVATION_* with its bounds.
void pg_packed_gemm(const float *packed, int m, int k, const float *x, int n, long x_pitch, long tile_stride, float *y,
                    const float *bias, const float *column_bias, int activation, float low_bound, float high_bound);
/// y[m × n] = activation(a·B + column_bias[column]) for `m` rows `a` of k floats, row-major, and B packed by
/// pg_pack_columns: a Linear layer, without packing its activations. column_bias may be NULL. Returns 0, having
/// done nothing, where the path has no such kernel (several rows: on AVX2 or portable, or against more than 1 MB of
/// columns): pack them for pg_packed_gemm.
int pg_rows_packed_columns(const float *a, int m, int k, const float *packed, int n, float *y, const float *column_bias, int activation,
                           float low_bound, float high_bound);

/// Loads OpenBLAS (libopenblas.so.0) unless PLANTGUIDE_BLAS=builtin; 1 when its functions are there. Without it the
/// products below run the built-in loops (matrix_builtin.c).
int pg_blas_load(void);
/// The kernels OpenBLAS chose, e.g. "SkylakeX"; "none" without it.
const char *pg_blas_core(void);
void pg_blas_set_threads(int count);
/// Row-major C = alpha·op(A)·op(B) + beta·C.
void pg_sgemm(int transpose_a, int transpose_b, int m, int n, int k, float alpha, const float *a, int lda,
              const float *b, int ldb, float beta, float *c, int ldc);
/// Row-major y = alpha·op(A)·x + beta·y, A rows × columns.
void pg_sgemv(int transpose, int rows, int columns, float alpha, const float *a, int lda, const float *x, float beta,
              float *y);
/// The built-in loops behind pg_sgemm and pg_sgemv where OpenBLAS is absent; the same arguments.
void pg_builtin_sgemm(int transpose_a, int transpose_b, int m, int n, int k, float alpha, const float *a, int lda,
                      const float *b, int ldb, float beta, float *c, int ldc);
void pg_builtin_sgemv(int transpose, int rows, int columns, float alpha, const float *a, int lda, const float *x,
                      float beta, float *y);


/// y = erf(x), element-wise (at most 4.2e-7 from the exact value).
void pg_erf(const float *x, float *y, long count);
/// y = GELU(x) = x·Φ(x) = 0.5·x·(1 + erf(x/√2)), element-wise.
void pg_gelu(const float *x, float *y, long count);
/// y = exp(x − shift), element-wise; returns the sum of y (a softmax row's denominator).
float pg_exp_shifted(const float *x, float *y, long count, float shift);
/// Softmax of each of `rows` contiguous rows of `length` values.
void pg_softmax_rows(const float *x, float *y, long rows, long length);
/// The mean of each of `rows` contiguous rows of `length` values: GlobalAveragePool, ReduceMean over the last axes.
void pg_mean_rows(const float *x, float *y, long rows, long length);
/// LayerNormalization of each of `rows` contiguous rows of `length` values: (x − mean) / √(variance + ε), times
/// `scale`, plus `bias` (full rows). Writes each row's mean and 1/√(variance + ε) when those are not null.
void pg_layer_norm_rows(const float *x, float *y, long rows, long length, const float *scale, const float *bias,
                        float epsilon, float *means, float *inverse_deviations);

#endif
