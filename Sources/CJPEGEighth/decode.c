// Decoding the scan on one or two threads, then writing the pixels.
#include "jpeg_eighth_internal.h"

#include <pthread.h>
#include <stdlib.h>

/// Below this much entropy-coded data one thread decodes it all: starting a second costs more than it saves.
#define SPLIT_MINIMUM (64 * 1024)

/// Decodes MCUs [first, end) with `reader` standing at MCU `first`: the scan's start or just past a restart marker.
static int decode_range(const je_frame *frame, je_bits *reader, size_t first, size_t end, int32_t *dc,
                        int32_t *detail) {
    int32_t predictors[3] = {0, 0, 0};
    size_t interval = (size_t)frame->restart_interval;
    for (size_t mcu = first; mcu < end; mcu++) {
        if (interval && mcu != first && mcu % interval == 0) {
            if (!je_take_marker(reader, 0xD0 + (int)((mcu / interval - 1) & 7))) return -1;
            predictors[0] = predictors[1] = predictors[2] = 0;
        }
        if (je_decode_mcu(frame, reader, predictors, dc + mcu * (size_t)frame->blocks_per_mcu,
                          detail + mcu * 4 * (size_t)frame->detail_blocks_per_mcu)) {
            return -1;
        }
    }
    return 0;
}

/// The second half of a scan with restart markers: exact, from the marker past the middle.
typedef struct {
    const je_frame *frame;
    je_bits reader;
    size_t first;
    int32_t *dc, *detail;
    int ok;
} restart_half;

static void *decode_restart_half(void *argument) {
    restart_half *half = argument;
    half->ok = decode_range(half->frame, &half->reader, half->first, half->frame->mcu_count, half->dc, half->detail) == 0
        && je_take_marker(&half->reader, 0xD9);
    return NULL;
}

/// The first restart marker at or past `middle`: the MCU after it (0 if none) and the byte after it in `resume`.
static size_t restart_split(const uint8_t *data, size_t size, const je_frame *frame, size_t middle, size_t *resume) {
    size_t markers = 0;
    for (size_t at = frame->scan_start; at + 1 < size;) {
        const uint8_t *found = memchr(data + at, 0xFF, size - 1 - at);
        if (!found) return 0;
        at = (size_t)(found - data);
        int next = data[at + 1];
        if (next == 0x00 || next == 0xFF) {
            at += next == 0x00 ? 2 : 1;
            continue;
        }
        if (next < 0xD0 || next > 0xD7) return 0; // the scan ends before the middle
        markers++;
        if (at >= middle) {
            size_t mcu = markers * (size_t)frame->restart_interval;
            *resume = at + 2;
            return mcu < frame->mcu_count ? mcu : 0;
        }
        at += 2;
    }
    return 0;
}

/// The second half of a scan without restart markers, decoded from a byte in the middle whose bit is not known to
/// start an MCU: each MCU's start and predictors are kept, so that the first half's thread can find where the
/// two agree.
typedef struct {
    const je_frame *frame;
    const uint8_t *data;
    size_t size, start;
    /// The start's bit offset from the scan's, unstuffed.
    uint64_t base;
    int32_t *dc, *detail;
    uint64_t *offsets;
    int32_t *predictors;
    size_t count;
    /// Whether the last MCU ends where the scan does, at EOI.
    int ended;
} ahead_half;

static void *decode_ahead(void *argument) {
    ahead_half *half = argument;
    const je_frame *frame = half->frame;
    size_t stuffed = 0;
    for (size_t at = frame->scan_start; at < half->start;) {
        const uint8_t *found = memchr(half->data + at, 0xFF, half->start - at);
        if (!found) break;
        at = (size_t)(found - half->data) + 1;
        if (half->data[at] != 0x00) return NULL; // a marker in the first half: no use guessing
        stuffed++;
        at++;
    }
    half->base = (half->start - frame->scan_start - stuffed) * 8;
    je_bits reader;
    je_bits_start(&reader, half->data, half->size, half->start);
    int32_t predictors[3] = {0, 0, 0};
    size_t per_mcu = (size_t)frame->blocks_per_mcu, detail_per_mcu = 4 * (size_t)frame->detail_blocks_per_mcu;
    for (;;) {
        if (reader.count < 32) je_bits_refill(&reader);
        uint64_t offset = je_bits_offset(&reader);
        if (reader.marker && offset + 8 > reader.data_loaded * 8) break; // only padding left
        if (half->count == frame->mcu_count) return NULL; // more MCUs than the image has: never in step
        half->offsets[half->count] = half->base + offset;
        memcpy(half->predictors + 3 * half->count, predictors, sizeof predictors);
        if (je_decode_mcu(frame, &reader, predictors, half->dc + half->count * per_mcu,
                          half->detail + half->count * detail_per_mcu)) {
            // Out of step, so was everything before: start again one bit on.
            half->count = 0;
            predictors[0] = predictors[1] = predictors[2] = 0;
            if (reader.count < 1) je_bits_refill(&reader);
            reader.bits <<= 1;
            reader.count -= 1;
            continue;
        }
        if (reader.marker && je_bits_offset(&reader) > reader.data_loaded * 8) break; // ran past the data
        half->count++;
    }
    half->ended = je_take_marker(&reader, 0xD9);
    return NULL;
}

/// The whole scan on this thread, joining the second half's MCUs once an MCU starts at a bit where one of them does.
static int decode_joining(const je_frame *frame, const uint8_t *data, size_t size, int32_t *dc, int32_t *detail,
                          ahead_half *half, pthread_t *thread) {
    je_bits reader;
    je_bits_start(&reader, data, size, frame->scan_start);
    int32_t predictors[3] = {0, 0, 0};
    size_t per_mcu = (size_t)frame->blocks_per_mcu, detail_per_mcu = 4 * (size_t)frame->detail_blocks_per_mcu, next = 0;
    int joined = thread == NULL, looking = thread != NULL;
    int result = -1;
    for (size_t mcu = 0; mcu < frame->mcu_count; mcu++) {
        if (looking && reader.position >= half->start) {
            if (!joined) {
                pthread_join(*thread, NULL);
                joined = 1;
            }
            uint64_t offset = je_bits_offset(&reader);
            while (next < half->count && half->offsets[next] < offset) next++;
            if (next == half->count || !half->ended) {
                looking = 0;
            } else if (half->offsets[next] == offset) {
                looking = 0;
                if (mcu + half->count - next == frame->mcu_count) {
                    int32_t shift[3];
                    for (int c = 0; c < 3; c++) {
                        shift[c] = (int32_t)((uint32_t)predictors[c] - (uint32_t)half->predictors[3 * next + c]);
                    }
                    for (size_t from = next, to = mcu; from < half->count; from++, to++) {
                        for (size_t block = 0; block < per_mcu; block++) {
                            dc[to * per_mcu + block] = (int32_t)((uint32_t)half->dc[from * per_mcu + block]
                                + (uint32_t)shift[frame->block_component[block]]);
                        }
                    }
                    memcpy(detail + mcu * detail_per_mcu, half->detail + next * detail_per_mcu,
                           (half->count - next) * detail_per_mcu * sizeof(int32_t));
                    result = 0;
                    goto done;
                }
            }
        }
        if (je_decode_mcu(frame, &reader, predictors, dc + mcu * per_mcu, detail + mcu * detail_per_mcu)) goto done;
    }
    result = je_take_marker(&reader, 0xD9) ? 0 : -1;
done:
    if (!joined) pthread_join(*thread, NULL);
    return result;
}

static jpeg_eighth_status decode_scan(const je_frame *frame, const uint8_t *data, size_t size, int32_t *dc,
                                      int32_t *detail, int threads) {
    size_t middle = frame->scan_start + (size - frame->scan_start) / 2;
    int split = threads >= 2 && size - frame->scan_start >= SPLIT_MINIMUM;
    if (frame->restart_interval) {
        restart_half half = {.frame = frame, .dc = dc, .detail = detail};
        size_t resume = 0;
        half.first = split ? restart_split(data, size, frame, middle, &resume) : 0;
        pthread_t thread;
        if (half.first) {
            je_bits_start(&half.reader, data, size, resume);
            if (pthread_create(&thread, NULL, decode_restart_half, &half)) half.first = 0;
        }
        je_bits reader;
        je_bits_start(&reader, data, size, frame->scan_start);
        size_t end = half.first ? half.first : frame->mcu_count;
        int ok = decode_range(frame, &reader, 0, end, dc, detail) == 0;
        if (half.first) {
            ok = ok && je_take_marker(&reader, 0xD0 + (int)((end / (size_t)frame->restart_interval - 1) & 7))
                && reader.position == resume;
            pthread_join(thread, NULL);
            ok = ok && half.ok;
        } else {
            ok = ok && je_take_marker(&reader, 0xD9);
        }
        return ok ? JPEG_EIGHTH_OK : JPEG_EIGHTH_INVALID;
    }
    if (!split) return decode_joining(frame, data, size, dc, detail, NULL, NULL) ? JPEG_EIGHTH_INVALID : JPEG_EIGHTH_OK;
    size_t per_mcu = (size_t)frame->blocks_per_mcu, detail_per_mcu = 4 * (size_t)frame->detail_blocks_per_mcu;
    ahead_half half = {.frame = frame, .data = data, .size = size, .start = middle};
    while (half.start < size - 1 && data[half.start - 1] == 0xFF) half.start++; // not inside a stuffed 0xFF 0x00
    half.dc = malloc(frame->mcu_count * per_mcu * sizeof(int32_t));
    half.offsets = malloc(frame->mcu_count * sizeof(uint64_t));
    half.predictors = malloc(frame->mcu_count * 3 * sizeof(int32_t));
    half.detail = malloc((detail_per_mcu ? frame->mcu_count * detail_per_mcu : 1) * sizeof(int32_t));
    pthread_t thread;
    int started = half.dc && half.offsets && half.predictors && half.detail
        && pthread_create(&thread, NULL, decode_ahead, &half) == 0;
    int result = decode_joining(frame, data, size, dc, detail, &half, started ? &thread : NULL);
    free(half.dc);
    free(half.detail);
    free(half.offsets);
    free(half.predictors);
    return result ? JPEG_EIGHTH_INVALID : JPEG_EIGHTH_OK;
}

jpeg_eighth_status jpeg_eighth_size(const uint8_t *data, size_t size, int *width, int *height) {
    je_frame *frame = malloc(sizeof *frame);
    if (!frame) return JPEG_EIGHTH_NO_MEMORY;
    jpeg_eighth_status status = je_parse(data, size, frame);
    if (status == JPEG_EIGHTH_OK) {
        *width = (frame->width + 7) / 8;
        *height = (frame->height + 7) / 8;
    }
    free(frame);
    return status;
}

jpeg_eighth_status jpeg_eighth_decode(const uint8_t *data, size_t size, uint8_t *rgb, int threads) {
    je_frame *frame = malloc(sizeof *frame);
    if (!frame) return JPEG_EIGHTH_NO_MEMORY;
    jpeg_eighth_status status = je_parse(data, size, frame);
    int32_t *dc = NULL, *detail = NULL;
    if (status == JPEG_EIGHTH_OK) {
        dc = malloc(frame->mcu_count * (size_t)frame->blocks_per_mcu * sizeof(int32_t));
        detail = malloc((frame->mcu_count * 4 * (size_t)frame->detail_blocks_per_mcu + 1) * sizeof(int32_t));
        status = dc && detail ? decode_scan(frame, data, size, dc, detail, threads) : JPEG_EIGHTH_NO_MEMORY;
    }
    if (status == JPEG_EIGHTH_OK && je_write_rgb(frame, dc, detail, rgb)) status = JPEG_EIGHTH_NO_MEMORY;
    free(dc);
    free(detail);
    free(frame);
    return status;
}
