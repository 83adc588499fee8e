import CImageCodecs
import Foundation
import PlantGuideImaging

extension TestImages {
    /// `image` as an iPhone saves it: HEVC-coded HEIF written by libheif's encoder (x265), quality 80. With
    /// `rotatedClockwise`, the pixels are stored as given and the file says to show them turned a quarter clockwise
    /// (an `irot` box, as a phone held upright writes a landscape sensor's image).
    public static func heic(_ image: RGBImage, rotatedClockwise: Bool = false) throws -> Data {
        struct EncodingFailed: Error, CustomStringConvertible { let description: String }
        func check(_ error: heif_error, _ step: String) throws {
            guard error.code == heif_error_Ok else {
                throw EncodingFailed(description: "libheif \(step): \(error.message.map { String(cString: $0) } ?? "failed")")
            }
        }
        let context = heif_context_alloc()
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "HEVC encoder")
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, 80), "quality")
        var picture: OpaquePointer?
        try check(heif_image_create(Int32(image.width), Int32(image.height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &picture), "image")
        defer { heif_image_release(picture) }
        try check(heif_image_add_plane(picture, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8), "plane")
        var stride: Int32 = 0
        let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride)!
        image.pixels.withUnsafeBytes { source in
            for row in 0..<image.height {
                (plane + row * Int(stride)).update(from: source.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * image.width * 3,
                                                  count: image.width * 3)
            }
        }
        let options = heif_encoding_options_alloc()
        defer { heif_encoding_options_free(options) }
        if rotatedClockwise { options?.pointee.image_orientation = heif_orientation_rotate_90_cw }
        try check(heif_context_encode_image(context, picture, encoder, options, nil), "encoding")

        final class Sink { var data = Data() }
        let sink = Sink()
        var writer = heif_writer(writer_api_version: 1) { _, bytes, size, userdata in
            Unmanaged<Sink>.fromOpaque(userdata!).takeUnretainedValue().data.append(bytes!.assumingMemoryBound(to: UInt8.self), count: size)
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        try withExtendedLifetime(sink) {
            try check(heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()), "writing")
        }
        return sink.data
    }
}
