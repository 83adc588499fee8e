// The padded copy the depthwise 3×3 kernels read (the same for AVX-512 and AVX2), and the kernels pg_depthwise3x3
// and pg_depthwise3x3_flat choose from. Private to CInferenceKernels.
#ifndef PLANTGUIDE_DEPTHWISE3X3_H
#define PLANTGUIDE_DEPTHWISE3X3_H

#include "inference_kernels.h"

/// Floats per row of the padded copy the windows read: their reach (halved at stride 2) in whole 16-float vectors.
static inline long padded_columns(const pg_window *w) {
    const long reach = (long)(w->out_width - 1) * w->stride_x + 3;
    const long columns = w->stride_x == 2 ? (reach + 1) / 2 : reach;
    return (columns + 15) / 16 * 16;
}

/// Floats per row of the padded copy: its columns, and one vector more, which the last vector's neighbour is
/// loaded from. The copy never writes that vector: it holds zeros or an earlier plane's values, which reach
/// only the lanes past the row's last output.
static inline long padded_pitch(const pg_window *w) { return padded_columns(w) + 16; }

static inline long padded_rows(const pg_window *w) { return (long)(w->out_height - 1) * w->stride_y + 3; }

/// For the flat kernels (output rows as wide as the input's): output j reads input j + flat_offset for `tap` (ky·3 +
/// kx), the same offset for every output; whether that input lies inside the plane (and j inside the output).
static inline long flat_offset(const pg_window *w, int tap) {
    return (long)(tap / 3 - w->pad_top) * w->width + (tap % 3 - w->pad_left);
}
static inline int flat_reads_inside(const pg_window *w, long j, int tap) {
    const long y = j / w->width + tap / 3 - w->pad_top, x = j % w->width + tap % 3 - w->pad_left;
    return j < (long)w->out_height * w->out_width && y >= 0 && y < w->height && x >= 0 && x < w->width;
}

/// Input rows fetched ahead of the copy, on planes of at least LARGE_PLANE values (MobileNetV2's 56×56 and up).
enum { AHEAD_ROWS = 16, LARGE_PLANE = 2048 };

/// Copies `plane` with its zero border into `padded` (padded_rows rows of `pitch` floats); at stride 2 each row as
/// its even columns then, `pitch` floats further, its odd ones. The depthwise and the direct 3×3 kernels read it.
void pg_pad_plane_avx2(const pg_window *w, const float *plane, float *padded, long pitch);

void pg_depthwise3x3_avx512(const pg_window *window, int channels, const float *input, const float *weights,
                            const float *bias, int activation, float low_bound, float high_bound, float *output,
                            float *scratch);
void pg_depthwise3x3_avx2(const pg_window *window, int channels, const float *input, const float *weights,
                          const float *bias, int activation, float low_bound, float high_bound, float *output,
                          float *scratch);
/// pg_depthwise3x3 at column stride 2 with one column of padding on the left, on AVX-512 or AVX2, from the planes
/// themselves (no scratch).
void pg_depthwise3x3_stride2_avx512(const pg_window *window, int channels, const float *input, const float *weights,
                                    const float *bias, int activation, float low_bound, float high_bound, float *output);
void pg_depthwise3x3_stride2_avx2(const pg_window *window, int channels, const float *input, const float *weights,
                                  const float *bias, int activation, float low_bound, float high_bound, float *output);
void pg_depthwise3x3_flat_avx512(const pg_window *window, int channels, const float *input, const float *weights,
                                 const float *bias, int activation, float low_bound, float high_bound, float *output);
void pg_depthwise3x3_flat_avx2(const pg_window *window, int channels, const float *input, const float *weights,
                               const float *bias, int activation, float low_bound, float high_bound, float *output);

#endif
