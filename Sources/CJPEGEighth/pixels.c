// From each block's DC coefficient (and, for 2×2 blocks, its AC part) to RGB pixels, as libjpeg-turbo's reduced
// IDCT and YCbCr conversion compute them.
#include "jpeg_eighth_internal.h"

#include <stdlib.h>

static inline int clamp255(int value) { return value < 0 ? 0 : value > 255 ? 255 : value; }

/// A pixel's level from its block's DC and its own AC part (1/256 levels): the reduced IDCT's output.
static inline int level(int32_t dc, int quant, int32_t detail) {
    int64_t mean = ((int64_t)dc * quant * 32 + detail + 128) >> 8;
    return mean < -128 ? 0 : mean > 127 ? 255 : (int)mean + 128;
}

/// Where an output pixel's value sits in the DC and detail arrays: a row part plus a column part.
typedef struct {
    size_t dc, detail;
} place;

/// Component `c`'s place for output coordinate `at` along one axis, whose sampling is `factor` of `maximum`, with
/// `mcu_step` and `detail_step` the arrays' steps from one MCU to the next along it, and `block_step` between the
/// component's blocks inside an MCU.
static place locate(const je_frame *frame, int c, int at, int factor, int maximum, size_t mcu_step, size_t detail_step,
                    int block_step, int pixel_step) {
    int side = frame->block_side[c];
    int scaled = at * factor * side / maximum;
    int block = scaled / side, inside = scaled % side;
    return (place){
        .dc = (size_t)(block / factor) * mcu_step + (size_t)(block % factor * block_step),
        .detail = (size_t)(block / factor) * detail_step + (size_t)(4 * (block % factor) * block_step + inside * pixel_step),
    };
}

int je_write_rgb(const je_frame *frame, const int32_t *dc, const int32_t *detail, uint8_t *rgb) {
    int width = (frame->width + 7) / 8, height = (frame->height + 7) / 8;
    if (frame->components == 1) {
        for (int y = 0; y < height; y++) {
            const int32_t *row = dc + (size_t)y * (size_t)frame->mcus_across;
            uint8_t *out = rgb + (size_t)y * (size_t)width * 3;
            for (int x = 0; x < width; x++) out[3 * x] = out[3 * x + 1] = out[3 * x + 2] = (uint8_t)level(row[x], frame->dc_quant[0], 0);
        }
        return 0;
    }
    int hmax = 1, vmax = 1;
    for (int c = 0; c < 3; c++) {
        if (frame->h[c] > hmax) hmax = frame->h[c];
        if (frame->v[c] > vmax) vmax = frame->v[c];
    }
    size_t per_mcu = (size_t)frame->blocks_per_mcu, detail_per_mcu = 4 * (size_t)frame->detail_blocks_per_mcu;
    place *columns = malloc(3 * (size_t)width * sizeof(place));
    if (!columns) return -1;
    for (int c = 0; c < 3; c++) {
        for (int x = 0; x < width; x++) {
            columns[c * width + x] = locate(frame, c, x, frame->h[c], hmax, per_mcu, detail_per_mcu, 1, 1);
        }
    }
    // libjpeg's fixed-point YCbCr → RGB: 16 fraction bits, rounded.
    const int32_t cr_r = 91881, cb_b = 116130, cb_g = -22554, cr_g = -46802, half = 1 << 15;
    for (int y = 0; y < height; y++) {
        uint8_t *out = rgb + (size_t)y * (size_t)width * 3;
        place rows[3];
        int has_detail[3];
        for (int c = 0; c < 3; c++) {
            size_t row_mcus = (size_t)frame->mcus_across;
            rows[c] = locate(frame, c, y, frame->v[c], vmax, row_mcus * per_mcu, row_mcus * detail_per_mcu, frame->h[c], 2);
            rows[c].dc += (size_t)frame->first_block[c];
            has_detail[c] = frame->block_side[c] == 2;
            if (has_detail[c]) rows[c].detail += 4 * (size_t)frame->detail_slot[frame->first_block[c]];
        }
        for (int x = 0; x < width; x++) {
            int sample[3];
            for (int c = 0; c < 3; c++) {
                const place *column = &columns[c * width + x];
                int32_t ac = has_detail[c] ? detail[rows[c].detail + column->detail] : 0;
                sample[c] = level(dc[rows[c].dc + column->dc], frame->dc_quant[c], ac);
            }
            int luma = sample[0], cb = sample[1] - 128, cr = sample[2] - 128;
            out[3 * x] = (uint8_t)clamp255(luma + ((cr_r * cr + half) >> 16));
            out[3 * x + 1] = (uint8_t)clamp255(luma + ((cb_g * cb + cr_g * cr + half) >> 16));
            out[3 * x + 2] = (uint8_t)clamp255(luma + ((cb_b * cb + half) >> 16));
        }
    }
    free(columns);
    return 0;
}
