// Reading Huffman-coded blocks: each block's DC difference decoded, its AC coefficients skipped.
#include "jpeg_eighth_internal.h"

#include <math.h>

void je_bits_refill(je_bits *reader) {
    // Eight bytes at once while none of them is 0xFF (stuffing or a marker).
    if (!reader->marker && reader->position + 8 <= reader->size) {
        uint64_t word;
        memcpy(&word, reader->data + reader->position, 8);
        uint64_t inverse = ~word;
        if (((inverse - 0x0101010101010101ULL) & ~inverse & 0x8080808080808080ULL) == 0) {
            int bytes = (64 - reader->count) >> 3;
            // The bytes past `bytes` land below the count, where the next refill writes the same bits again.
            reader->bits |= __builtin_bswap64(word) >> reader->count;
            reader->position += (size_t)bytes;
            reader->count += bytes * 8;
            reader->loaded += (uint64_t)bytes;
            reader->data_loaded += (uint64_t)bytes;
            return;
        }
    }
    while (reader->count <= 56) {
        uint64_t byte = 0;
        if (!reader->marker) {
            if (reader->position >= reader->size) {
                reader->marker = -1; // the file ends inside the data
            } else if (reader->data[reader->position] != 0xFF) {
                byte = reader->data[reader->position++];
                reader->data_loaded++;
            } else if (reader->position + 1 < reader->size && reader->data[reader->position + 1] == 0x00) {
                byte = 0xFF;
                reader->position += 2;
                reader->data_loaded++;
            } else {
                size_t at = reader->position + 1;
                while (at < reader->size && reader->data[at] == 0xFF) at++;
                reader->marker = at < reader->size ? reader->data[at] : -1;
            }
        }
        reader->bits |= byte << (56 - reader->count);
        reader->count += 8;
        reader->loaded++;
    }
}

/// A code longer than the lookahead: its symbol, or -1.
static int slow_symbol(const je_huffman *table, uint64_t bits, int *length) {
    uint32_t next16 = (uint32_t)(bits >> 48);
    for (int l = JE_LOOKAHEAD + 1; l <= 16; l++) {
        int32_t code = (int32_t)(next16 >> (16 - l));
        if (code <= table->max_code[l]) {
            *length = l;
            return table->symbols[code + table->offset[l]];
        }
    }
    return -1;
}

static inline void consume(je_bits *reader, int count) {
    reader->bits <<= count;
    reader->count -= count;
}

/// A magnitude of `size` bits: the value it stands for.
static inline int32_t extend(uint32_t bits, int size) {
    return bits < (1u << (size - 1)) ? (int32_t)bits - (1 << size) + 1 : (int32_t)bits;
}

/// The next symbol of `table`, its code consumed; -1 for a code the table does not have.
static inline int take_symbol(const je_huffman *table, je_bits *reader) {
    int length, symbol;
    unsigned entry = table->symbol_fast[reader->bits >> (64 - JE_LOOKAHEAD)];
    if (entry) {
        length = (int)(entry & 0xFF);
        symbol = (int)(entry >> 8);
    } else {
        symbol = slow_symbol(table, reader->bits, &length);
        if (symbol < 0) return -1;
    }
    consume(reader, length);
    return symbol;
}

/// The AC coefficients of a block shown as 2×2 pixels: decoded, and summed into each pixel's AC part.
static int decode_detail(const je_huffman *table, const double share[64][4], je_bits *reader, int32_t detail[4]) {
    double sum[4] = {0, 0, 0, 0};
    for (int k = 1; k < 64; k++) {
        if (reader->count < 32) je_bits_refill(reader);
        int symbol = take_symbol(table, reader);
        if (symbol < 0) return -1;
        int run = symbol >> 4, size = symbol & 15;
        if (size == 0) {
            if (symbol == 0x00) break;
            if (symbol != 0xF0) return -1;
        }
        k += run;
        if (k > 63) return -1;
        if (size) {
            int32_t value = extend((uint32_t)(reader->bits >> (64 - size)), size);
            consume(reader, size);
            for (int pixel = 0; pixel < 4; pixel++) sum[pixel] += value * share[k][pixel];
        }
    }
    for (int pixel = 0; pixel < 4; pixel++) detail[pixel] = (int32_t)lrint(sum[pixel]);
    return 0;
}

int je_decode_mcu(const je_frame *frame, je_bits *reader, int32_t predictors[3], int32_t *dc, int32_t *detail) {
    for (int block = 0; block < frame->blocks_per_mcu; block++) {
        int component = frame->block_component[block];
        const je_huffman *dc_table = frame->dc_table[component], *ac_table = frame->ac_table[component];
        if (reader->count < 32) je_bits_refill(reader);
        int size = take_symbol(dc_table, reader);
        if (size < 0 || size > 15) return -1;
        int32_t difference = 0;
        if (size) {
            difference = extend((uint32_t)(reader->bits >> (64 - size)), size);
            consume(reader, size);
        }
        // Wrapping: a thread decoding out of step may sum garbage, and joined halves differ by a constant.
        predictors[component] = (int32_t)((uint32_t)predictors[component] + (uint32_t)difference);
        dc[block] = predictors[component];
        if (frame->detail_slot[block] >= 0) {
            if (decode_detail(ac_table, frame->share[component], reader, detail + 4 * frame->detail_slot[block])) return -1;
            continue;
        }
        int k = 1;
        while (k < 64) {
            if (reader->count < 32) je_bits_refill(reader);
            // Several short symbols at once, unless they could run past this block into the next one's DC (an end
            // of block counts as one more coefficient: libjpeg reads none after the 63rd).
            unsigned multi = ac_table->multi[reader->bits >> (64 - JE_MULTI_BITS)];
            int skipped = (int)(multi >> 5), ends = (int)(multi >> 4) & 1;
            if (multi && k + skipped + ends <= 64) {
                consume(reader, (int)(multi & 15));
                k += skipped;
                if (ends) break;
                continue;
            }
            int length;
            unsigned entry = ac_table->fast[reader->bits >> (64 - JE_LOOKAHEAD)];
            if (!entry) {
                int symbol = slow_symbol(ac_table, reader->bits, &length);
                if (symbol < 0) return -1;
                if (symbol == 0x00) entry = (unsigned)length | 0x8000;
                else if (symbol == 0xF0) entry = (unsigned)length | 16 << 8 | 0x8000;
                else if ((symbol & 15) == 0) return -1;
                else entry = (unsigned)(length + (symbol & 15)) | (unsigned)((symbol >> 4) + 1) << 8 | 0x8000;
            }
            consume(reader, (int)(entry & 0xFF));
            int advance = (int)(entry >> 8) & 0x7F;
            if (!advance) break;
            k += advance;
        }
        if (k > 64) return -1;
    }
    return 0;
}

int je_take_marker(je_bits *reader, int code) {
    // Bits of data still unread: at most the padding of the last byte.
    uint64_t unread = reader->data_loaded * 8 - (reader->loaded * 8 - (uint64_t)reader->count);
    if (reader->loaded * 8 - (uint64_t)reader->count > reader->data_loaded * 8) return 0; // read past the data
    if (unread >= 8) return 0;
    if (!reader->marker) {
        // The buffer ended just before the marker: the next bytes must be it.
        size_t at = reader->position;
        while (at < reader->size && reader->data[at] == 0xFF) at++;
        if (at == reader->position || at >= reader->size || reader->data[at] == 0x00) return 0;
        reader->marker = reader->data[at];
    }
    if (reader->marker != code) return 0;
    size_t at = reader->position;
    while (reader->data[at] == 0xFF) at++;
    reader->position = at + 1;
    reader->bits = 0;
    reader->count = 0;
    reader->marker = 0;
    reader->loaded = reader->data_loaded; // the zeros fed after the marker were never data
    return 1;
}
