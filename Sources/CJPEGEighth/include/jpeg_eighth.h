// Decoding baseline JPEGs at 1/8 scale from their DC coefficients alone, on up to two threads.
//
// At 1/8 scale each 8×8 block becomes one pixel: its DC coefficient. libjpeg-turbo still stores every
// coefficient and runs its scaled IDCT, chroma upsampling and colour conversion per block; for a 12-megapixel photo
// its decoding takes most of an identification. This decoder reads the Huffman codes of the AC coefficients only to
// skip them, and splits the entropy-coded data in two: exactly at a restart marker when the file has them, or else
// at the middle, where a second thread decodes ahead from an unknown bit position until Huffman codes resynchronise
// (they do within a few blocks), then joins its results to the first thread's at the first MCU both decoded alike.
//
// It handles sequential Huffman JPEGs (SOF0/SOF1, 8-bit) with one interleaved scan of grey or YCbCr. Anything
// else, and any file it finds damaged, it declines, so that the caller decodes with libjpeg-turbo, which names
// what is wrong. Its pixels are libjpeg-turbo's 1/8-scale pixels, except that chroma subsampled both ways (4:2:0),
// which libjpeg-turbo shows through a 2×2 reduced IDCT, goes through one computed in floating point: within 2
// levels of libjpeg-turbo's fixed-point one.
#ifndef JPEG_EIGHTH_H
#define JPEG_EIGHTH_H

#include <stddef.h>
#include <stdint.h>

/// What a call did.
typedef enum {
    JPEG_EIGHTH_OK = 0,
    /// A JPEG this decoder does not handle (progressive, arithmetic, CMYK, RGB, several scans, 12-bit...).
    JPEG_EIGHTH_UNSUPPORTED = 1,
    /// Damaged or truncated data: libjpeg-turbo will say what is wrong.
    JPEG_EIGHTH_INVALID = 2,
    JPEG_EIGHTH_NO_MEMORY = 3,
} jpeg_eighth_status;

/// The 1/8-scale size (each side divided by 8, rounded up) when the file is one this decoder handles.
jpeg_eighth_status jpeg_eighth_size(const uint8_t *data, size_t size, int *width, int *height);

/// Decodes into `rgb` (width × height × 3 bytes of the size `jpeg_eighth_size` gives), using two threads when
/// `threads` ≥ 2 and the data is large enough to gain from them.
jpeg_eighth_status jpeg_eighth_decode(const uint8_t *data, size_t size, uint8_t *rgb, int threads);

#endif
