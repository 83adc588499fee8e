// Reading a JPEG's markers up to its first scan: the frame, the quantisation and Huffman tables, restarts.
#include "jpeg_eighth_internal.h"

#include <math.h>

static int read16(const uint8_t *p) { return p[0] << 8 | p[1]; }

/// The symbol whose code begins `bits` (the top `available` of them), and its length; -1 when no whole code is there.
static int symbol_at(const je_huffman *table, uint32_t bits, int available, int *length) {
    for (int l = 1; l <= available && l <= 16; l++) {
        int32_t code = (int32_t)(bits >> (available - l));
        if (code <= table->max_code[l]) {
            *length = l;
            return table->symbols[code + table->offset[l]];
        }
    }
    return -1;
}

/// Fills an AC table's multi-symbol lookup: for each JE_MULTI_BITS-bit pattern, the whole symbols it begins with.
static void fill_multi(je_huffman *table) {
    for (uint32_t pattern = 0; pattern < 1u << JE_MULTI_BITS; pattern++) {
        int used = 0, advance = 0, end = 0;
        for (;;) {
            int available = JE_MULTI_BITS - used, length;
            int symbol = symbol_at(table, pattern & ((1u << available) - 1), available, &length);
            if (symbol < 0) break;
            int size = symbol & 15;
            if (size == 0 && symbol != 0x00 && symbol != 0xF0) break; // not baseline: left to the slow path
            if (length + size > available) break;
            used += length + size;
            if (symbol == 0x00) {
                end = 1;
                break;
            }
            advance += symbol == 0xF0 ? 16 : (symbol >> 4) + 1;
        }
        table->multi[pattern] = (uint16_t)(used ? used | end << 4 | advance << 5 : 0);
    }
}

/// Builds decoding tables from a DHT segment's 16 counts and symbols, as libjpeg does, refusing what it refuses.
static int build_table(je_huffman *table, const uint8_t counts[16], const uint8_t *symbols, int total, int ac) {
    memset(table, 0, sizeof *table);
    memcpy(table->symbols, symbols, (size_t)total);
    int32_t code = 0;
    int index = 0;
    for (int length = 1; length <= 16; length++) {
        table->offset[length] = index - code;
        for (int i = 0; i < counts[length - 1]; i++, index++, code++) {
            if (length > JE_LOOKAHEAD) continue;
            int symbol = symbols[index];
            int spread = JE_LOOKAHEAD - length;
            for (int fill = 0; fill < 1 << spread; fill++) {
                table->symbol_fast[(code << spread) | fill] = (uint16_t)(length | symbol << 8);
            }
            if (!ac) continue; // DC codes are read through symbol_fast
            uint16_t entry;
            int run = symbol >> 4, size = symbol & 15;
            if (symbol == 0x00) entry = (uint16_t)(length | 0x8000);
            else if (symbol == 0xF0) entry = (uint16_t)(length | 16 << 8 | 0x8000);
            else if (size == 0) continue; // an end-of-band run: progressive only
            else entry = (uint16_t)((length + size) | (run + 1) << 8 | 0x8000);
            for (int fill = 0; fill < 1 << spread; fill++) table->fast[(code << spread) | fill] = entry;
        }
        table->max_code[length] = counts[length - 1] ? code - 1 : -1;
        if (code >= (1 << length)) return -1;
        code <<= 1;
    }
    table->defined = 1;
    if (ac) fill_multi(table);
    return 0;
}

/// The natural (row-major) index of each zigzag position.
static const uint8_t natural_order[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

/// How much a frequency contributes to the mean of one half of the block's samples (`half` 0: the first four,
/// 1: the last four), with the IDCT's normalisation: the 1-D step of a 2×2 reduced IDCT.
static double half_mean(int frequency, int half) {
    double sum = 0;
    for (int x = 4 * half; x < 4 * half + 4; x++) sum += cos((2 * x + 1) * frequency * M_PI / 16);
    return (frequency ? 1.0 : M_SQRT1_2) * sum / 4;
}

/// Each coefficient's dequantised share of the four pixels of a 2×2 IDCT, in 1/256 levels.
static void fill_shares(double share[64][4], const uint16_t quant[64]) {
    for (int zigzag = 0; zigzag < 64; zigzag++) {
        int row = natural_order[zigzag] / 8, column = natural_order[zigzag] % 8;
        for (int pixel = 0; pixel < 4; pixel++) {
            share[zigzag][pixel] = 256.0 / 4 * half_mean(row, pixel / 2) * half_mean(column, pixel % 2) * quant[zigzag];
        }
    }
}

/// An APP14 "Adobe" segment saying the three components are RGB, not YCbCr.
static int adobe_rgb(const uint8_t *segment, int length) {
    return length >= 12 && memcmp(segment, "Adobe", 5) == 0 && segment[11] == 0;
}

jpeg_eighth_status je_parse(const uint8_t *data, size_t size, je_frame *frame) {
    memset(frame, 0, sizeof *frame);
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return JPEG_EIGHTH_UNSUPPORTED;
    uint16_t quant[4][64];
    int quant_defined[4] = {0}, table_of[3] = {0}, ids[3] = {0}, saw_frame = 0, rgb = 0;
    size_t at = 2;
    for (;;) {
        while (at < size && data[at] == 0xFF && at + 1 < size && data[at + 1] == 0xFF) at++;
        if (at + 4 > size || data[at] != 0xFF) return JPEG_EIGHTH_INVALID;
        int marker = data[at + 1];
        int length = read16(data + at + 2);
        if (length < 2 || at + 2 + (size_t)length > size) return JPEG_EIGHTH_INVALID;
        const uint8_t *segment = data + at + 4;
        int body = length - 2;
        switch (marker) {
        case 0xC0: case 0xC1: { // sequential Huffman
            if (saw_frame || body < 6) return JPEG_EIGHTH_INVALID;
            saw_frame = 1;
            if (segment[0] != 8) return JPEG_EIGHTH_UNSUPPORTED;
            frame->height = read16(segment + 1);
            frame->width = read16(segment + 3);
            frame->components = segment[5];
            if (frame->components != 1 && frame->components != 3) return JPEG_EIGHTH_UNSUPPORTED;
            if (frame->width == 0 || frame->height == 0) return JPEG_EIGHTH_UNSUPPORTED; // DNL
            if (body < 6 + 3 * frame->components) return JPEG_EIGHTH_INVALID;
            for (int c = 0; c < frame->components; c++) {
                ids[c] = segment[6 + 3 * c];
                frame->h[c] = segment[7 + 3 * c] >> 4;
                frame->v[c] = segment[7 + 3 * c] & 15;
                table_of[c] = segment[8 + 3 * c];
                if (frame->h[c] < 1 || frame->h[c] > 4 || frame->v[c] < 1 || frame->v[c] > 4 || table_of[c] > 3) {
                    return JPEG_EIGHTH_INVALID;
                }
            }
            break;
        }
        case 0xC2: case 0xC3: case 0xC5: case 0xC6: case 0xC7: case 0xC9: case 0xCA: case 0xCB: case 0xCD:
        case 0xCE: case 0xCF:
            return JPEG_EIGHTH_UNSUPPORTED; // progressive, lossless, hierarchical, arithmetic
        case 0xDB: // quantisation tables
            for (int i = 0; i < body;) {
                int precision = segment[i] >> 4, id = segment[i] & 15;
                int bytes = precision ? 128 : 64;
                if (id > 3 || i + 1 + bytes > body) return JPEG_EIGHTH_INVALID;
                for (int k = 0; k < 64; k++) {
                    quant[id][k] = (uint16_t)(precision ? read16(segment + i + 1 + 2 * k) : segment[i + 1 + k]);
                }
                quant_defined[id] = 1;
                i += 1 + bytes;
            }
            break;
        case 0xC4: // Huffman tables
            for (int i = 0; i < body;) {
                if (i + 17 > body) return JPEG_EIGHTH_INVALID;
                int class = segment[i] >> 4, id = segment[i] & 15, total = 0;
                for (int l = 0; l < 16; l++) total += segment[i + 1 + l];
                if (class > 1 || id > 3 || total > 256 || i + 17 + total > body) return JPEG_EIGHTH_INVALID;
                if (build_table(&frame->tables[class * 4 + id], segment + i + 1, segment + i + 17, total, class)) {
                    return JPEG_EIGHTH_INVALID;
                }
                i += 17 + total;
            }
            break;
        case 0xDD: // restart interval
            if (body < 2) return JPEG_EIGHTH_INVALID;
            frame->restart_interval = read16(segment);
            break;
        case 0xEE:
            if (adobe_rgb(segment, body)) rgb = 1;
            break;
        case 0xDA: { // the first scan: it must hold every component
            if (!saw_frame || body < 1) return JPEG_EIGHTH_INVALID;
            int count = segment[0];
            if (count != frame->components) return JPEG_EIGHTH_UNSUPPORTED;
            if (body < 1 + 2 * count + 3) return JPEG_EIGHTH_INVALID;
            for (int i = 0; i < count; i++) {
                int id = segment[1 + 2 * i], dc = segment[2 + 2 * i] >> 4, ac = segment[2 + 2 * i] & 15;
                if (id != ids[i] || dc > 3 || ac > 3) return JPEG_EIGHTH_UNSUPPORTED;
                frame->dc_table[i] = &frame->tables[dc];
                frame->ac_table[i] = &frame->tables[4 + ac];
                if (!frame->dc_table[i]->defined || !frame->ac_table[i]->defined || !quant_defined[table_of[i]]) {
                    return JPEG_EIGHTH_INVALID;
                }
                frame->dc_quant[i] = quant[table_of[i]][0];
                fill_shares(frame->share[i], quant[table_of[i]]);
            }
            const uint8_t *spectral = segment + 1 + 2 * count;
            if (spectral[0] != 0 || spectral[1] != 63 || spectral[2] != 0) return JPEG_EIGHTH_UNSUPPORTED;
            frame->scan_start = at + 2 + (size_t)length;
            goto scan;
        }
        case 0xD8: case 0xD9:
            return JPEG_EIGHTH_INVALID;
        default: // APPn, COM and others carry nothing decoding needs
            break;
        }
        at += 2 + (size_t)length;
    }
scan:
    if (frame->components == 3 && (rgb || (ids[0] == 'R' && ids[1] == 'G' && ids[2] == 'B'))) return JPEG_EIGHTH_UNSUPPORTED;
    if (frame->components == 1) {
        // One component alone is not interleaved: an MCU is one block, whatever its sampling factors.
        frame->h[0] = frame->v[0] = 1;
        frame->block_side[0] = 1;
        frame->detail_slot[0] = -1;
        frame->blocks_per_mcu = 1;
        frame->mcus_across = (frame->width + 7) / 8;
        frame->mcus_down = (frame->height + 7) / 8;
    } else {
        int hmax = 1, vmax = 1, blocks = 0;
        for (int c = 0; c < 3; c++) {
            if (frame->h[c] > hmax) hmax = frame->h[c];
            if (frame->v[c] > vmax) vmax = frame->v[c];
        }
        for (int c = 0; c < 3; c++) {
            // Each component's pixels must map to whole output pixels.
            if (hmax % frame->h[c] || vmax % frame->v[c]) return JPEG_EIGHTH_UNSUPPORTED;
            // libjpeg-turbo's choice: blocks grow (2×2, 4×4...) while the subsampling both ways allows.
            int side = 1;
            while (side < 8 && hmax % (frame->h[c] * side * 2) == 0 && vmax % (frame->v[c] * side * 2) == 0) side *= 2;
            if (side > 2) return JPEG_EIGHTH_UNSUPPORTED;
            frame->block_side[c] = side;
            frame->first_block[c] = blocks;
            for (int b = 0; b < frame->h[c] * frame->v[c]; b++) {
                if (blocks == JE_MAX_BLOCKS) return JPEG_EIGHTH_INVALID;
                frame->detail_slot[blocks] = side == 2 ? frame->detail_blocks_per_mcu++ : -1;
                frame->block_component[blocks++] = c;
            }
        }
        frame->blocks_per_mcu = blocks;
        frame->mcus_across = (frame->width + 8 * hmax - 1) / (8 * hmax);
        frame->mcus_down = (frame->height + 8 * vmax - 1) / (8 * vmax);
    }
    frame->mcu_count = (size_t)frame->mcus_across * (size_t)frame->mcus_down;
    return JPEG_EIGHTH_OK;
}
