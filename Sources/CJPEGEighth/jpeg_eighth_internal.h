// The parts of the 1/8-scale decoder shared by its files: the parsed frame, Huffman tables and the bit reader.
#ifndef JPEG_EIGHTH_INTERNAL_H
#define JPEG_EIGHTH_INTERNAL_H

#include "jpeg_eighth.h"

#include <stdint.h>
#include <string.h>

/// Bits looked up at once: codes up to this long decode with one table read.
#define JE_LOOKAHEAD 10
/// Bits an AC table's multi-symbol lookup reads at once.
#define JE_MULTI_BITS 11
/// Most blocks an MCU may have (JPEG's limit).
#define JE_MAX_BLOCKS 10

/// One Huffman table, for decoding (DC) or skipping (AC) a symbol.
typedef struct {
    /// By the next JE_LOOKAHEAD bits, for codes no longer: 0 when the code is longer (or invalid).
    /// AC tables only: bits to skip (code and magnitude) | advance << 8 (run + 1, 16 for ZRL, 0 for end of block)
    /// | 0x8000.
    uint16_t fast[1 << JE_LOOKAHEAD];
    /// By the next JE_LOOKAHEAD bits: code length | symbol << 8, or 0 for a longer code.
    uint16_t symbol_fast[1 << JE_LOOKAHEAD];
    /// AC tables, by the next JE_MULTI_BITS bits: every whole symbol (code and magnitude) they hold, up to an end of
    /// block, skipped at once: bits | end of block << 4 | advance << 5. 0 when not even one fits.
    uint16_t multi[1 << JE_MULTI_BITS];
    /// For longer codes: the largest code of each length (-1 if none) and its symbol's offset in `symbols`.
    int32_t max_code[17];
    int32_t offset[17];
    uint8_t symbols[256];
    int defined;
} je_huffman;

/// What decoding needs from a file's headers.
typedef struct {
    int width, height;
    int components;
    int h[3], v[3];
    /// The DC quantisation step of each component.
    int dc_quant[3];
    /// Pixels per block side at 1/8 scale, as libjpeg-turbo decodes it: 1, or 2 for chroma subsampled both ways,
    /// which libjpeg-turbo decodes with a 2×2 IDCT rather than upsample.
    int block_side[3];
    /// For 2×2 blocks: each coefficient's share (by zigzag index, dequantised) of each of the four pixels, in
    /// 1/256 levels.
    double share[3][64][4];
    /// Each block's place among the MCU's 2×2 blocks, or -1.
    int detail_slot[JE_MAX_BLOCKS];
    int detail_blocks_per_mcu;
    const je_huffman *dc_table[3], *ac_table[3];
    /// The MCU's blocks in order, by component, and where each component's blocks start in it.
    int blocks_per_mcu;
    int block_component[JE_MAX_BLOCKS];
    int first_block[3];
    int mcus_across, mcus_down;
    size_t mcu_count;
    int restart_interval;
    /// The first byte of entropy-coded data.
    size_t scan_start;
    je_huffman tables[8];
} je_frame;

/// Parses the headers up to the first scan. JPEG_EIGHTH_OK when the file is one the decoder handles.
jpeg_eighth_status je_parse(const uint8_t *data, size_t size, je_frame *frame);

/// A reader of entropy-coded bits: 0xFF 0x00 unstuffed, zeros fed after a marker.
typedef struct {
    const uint8_t *data;
    /// The next byte to read; at a marker, its 0xFF.
    size_t position;
    size_t size;
    /// Left-aligned: the next bit is the top one.
    uint64_t bits;
    int count;
    /// The marker's code once reached, else 0.
    int marker;
    /// Bytes put into `bits`: data, and the zeros after a marker.
    uint64_t loaded;
    uint64_t data_loaded;
} je_bits;

static inline void je_bits_start(je_bits *reader, const uint8_t *data, size_t size, size_t position) {
    memset(reader, 0, sizeof *reader);
    reader->data = data;
    reader->size = size;
    reader->position = position;
}

/// The bit position from where the reader started, unstuffed.
static inline uint64_t je_bits_offset(const je_bits *reader) { return reader->loaded * 8 - (uint64_t)reader->count; }

/// Fills the buffer to more than 56 bits.
void je_bits_refill(je_bits *reader);

/// Decodes one MCU, writing each block's DC (its running sum, quantised) to `dc`, updating `predictors`, and for
/// 2×2 blocks the AC part of their four pixels (1/256 levels) to `detail`.
/// Returns 0, or -1 for a code no table has or a block longer than 64 coefficients.
int je_decode_mcu(const je_frame *frame, je_bits *reader, int32_t predictors[3], int32_t *dc, int32_t *detail);

/// After the last MCU before a marker: true when at most a byte's padding is left and the marker is `code`, which it
/// then steps over.
int je_take_marker(je_bits *reader, int code);

/// Writes the 1/8-scale RGB pixels from each block's DC and 2×2 details (MCU order). 0, or -1 without memory.
int je_write_rgb(const je_frame *frame, const int32_t *dc, const int32_t *detail, uint8_t *rgb);

#endif
