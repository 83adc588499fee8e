import CImageCodecs
import Foundation

/// HEIC (HEVC in a HEIF container), the format iPhones save photos in, read with libheif. The primary image's
/// size is the one shown: libheif applies the file's rotation and mirroring (`irot`, `imir`) while decoding, so
/// no EXIF orientation is applied on top.
enum HEIFCodec {
    /// A file read into a libheif context, with its primary image; closed when it goes.
    private final class Primary {
        let context: OpaquePointer
        let handle: OpaquePointer

        /// `bytes` must outlive the value: libheif reads them in place.
        init(_ bytes: UnsafeRawBufferPointer) throws {
            guard let context = heif_context_alloc() else { throw ImagingError(.corrupt, "the HEIC could not be read (out of memory)") }
            var error = heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil)
            guard error.code == heif_error_Ok else {
                heif_context_free(context)
                throw HEIFCodec.imagingError(error, "header")
            }
            var handle: OpaquePointer?
            error = heif_context_get_primary_image_handle(context, &handle)
            guard error.code == heif_error_Ok, let handle else {
                heif_context_free(context)
                throw HEIFCodec.imagingError(error, "header")
            }
            self.context = context
            self.handle = handle
        }

        deinit {
            heif_image_handle_release(handle)
            heif_context_free(context)
        }
    }

    /// Width and height of the primary image as shown.
    static func size(_ bytes: UnsafeRawBufferPointer) throws -> (Int, Int) {
        let primary = try Primary(bytes)
        return (Int(heif_image_handle_get_width(primary.handle)), Int(heif_image_handle_get_height(primary.handle)))
    }

    /// The primary image as upright RGB. Call ``size(_:)`` first to check it against the limits.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> RGBImage {
        let primary = try Primary(bytes)
        var decoded: OpaquePointer?
        let error = heif_decode_image(primary.handle, &decoded, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nil)
        guard error.code == heif_error_Ok, let decoded else { throw imagingError(error, "image") }
        defer { heif_image_release(decoded) }
        let width = Int(heif_image_get_width(decoded, heif_channel_interleaved))
        let height = Int(heif_image_get_height(decoded, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride) else {
            throw ImagingError(.corrupt, "the HEIC has no pixels")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBytes { target in
            for row in 0..<height {
                (target.baseAddress! + row * width * 3).copyMemory(from: plane + row * Int(stride), byteCount: width * 3)
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// libheif's error in a person's words: a file that stops early is truncated, anything else damaged.
    private static func imagingError(_ error: heif_error, _ part: String) -> ImagingError {
        let text = error.message.map { String(cString: $0) } ?? "unknown error"
        if error.subcode == heif_suberror_End_of_data { return ImagingError(.truncated, "the HEIC is truncated") }
        if error.code == heif_error_Unsupported_feature || error.code == heif_error_Unsupported_filetype {
            return ImagingError(.unsupportedFormat, "this HEIF file cannot be read: \(text)")
        }
        return ImagingError(.corrupt, "the HEIC \(part) is damaged: \(text)")
    }
}
