import CImageCodecs
import Foundation

/// How big an image may be. A PNG, WebP or HEIC declaring more is refused before any pixel memory is taken.
public struct ImageLimits: Sendable {
    /// Default 60 megapixels: more than any phone camera, far less than a decompression bomb.
    public var maxPixels: Int = 60_000_000
    /// Default 30,000 pixels on either side.
    public var maxSide: Int = 30_000

    public init() {}
}

/// Reads JPEG, PNG, WebP and HEIC into upright RGB pixels. JPEGs are decoded at a reduced DCT scale when only a
/// smaller image is wanted, which is most of the cost saved for thumbnails of large photos.
public enum ImageDecoder {
    /// What a header says.
    public struct Info: Sendable, Equatable {
        public var format: ImageFormat
        /// Width and height as shown (after EXIF orientation).
        public var width: Int
        public var height: Int
        public var orientation: ExifOrientation

        public init(format: ImageFormat, width: Int, height: Int, orientation: ExifOrientation) {
            self.format = format
            self.width = width
            self.height = height
            self.orientation = orientation
        }
    }

    /// Format, size and orientation from the header alone.
    /// - Throws: ``ImagingError`` (empty, unsupported, corrupt header, too large).
    public static func inspect(_ data: Data, limits: ImageLimits = .init()) throws -> Info {
        try data.withUnsafeBytes { bytes in try header(bytes, limits: limits).info }
    }

    /// The whole image, upright, scaled down to fit `maxLongSide` when given.
    /// - Throws: ``ImagingError`` naming what is wrong (truncated, corrupt, too large, not an image).
    public static func decode(_ data: Data, maxLongSide: Int? = nil, limits: ImageLimits = .init()) throws -> RGBImage {
        try data.withUnsafeBytes { bytes in
            let (info, stored) = try header(bytes, limits: limits)
            var image: RGBImage
            switch info.format {
            case .jpeg: image = try JPEGCodec.decode(bytes, storedWidth: stored.width, storedHeight: stored.height, atLeast: maxLongSide)
            case .png: image = try decodePNG(bytes, width: stored.width, height: stored.height)
            case .webp: image = try decodeWebP(bytes, width: stored.width, height: stored.height)
            case .heic: image = try HEIFCodec.decode(bytes)
            }
            image = image.applying(info.orientation)
            if let maxLongSide {
                let size = image.fittingSize(longSide: maxLongSide)
                image = image.resized(width: size.width, height: size.height)
            }
            return image
        }
    }

    private static func header(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws -> (info: Info, stored: (width: Int, height: Int)) {
        guard !bytes.isEmpty else { throw ImagingError(.empty, "the file is empty") }
        guard let format = ImageFormat.detect(bytes) else {
            throw ImagingError(.unsupportedFormat, "not a JPEG, PNG, WebP or HEIC image")
        }
        let (width, height): (Int, Int)
        var orientation = ExifOrientation.up
        switch format {
        case .jpeg:
            (width, height) = try JPEGCodec.size(bytes)
            orientation = ExifOrientation.read(fromJPEG: bytes)
        case .png:
            (width, height) = try pngSize(bytes)
        case .webp:
            var w: Int32 = 0
            var h: Int32 = 0
            guard WebPGetInfo(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &w, &h) != 0 else {
                throw ImagingError(.corrupt, "the WebP header is damaged")
            }
            (width, height) = (Int(w), Int(h))
        case .heic:
            (width, height) = try HEIFCodec.size(bytes)
        }
        guard width > 0, height > 0 else { throw ImagingError(.corrupt, "the \(format.rawValue) has no pixels") }
        guard width <= limits.maxSide, height <= limits.maxSide, width * height <= limits.maxPixels else {
            throw ImagingError(.tooLarge, "\(width)×\(height) pixels is more than the \(limits.maxPixels / 1_000_000) megapixels allowed")
        }
        let shown = orientation.swapsDimensions ? (height, width) : (width, height)
        return (Info(format: format, width: shown.0, height: shown.1, orientation: orientation), (width, height))
    }

    private static func pngSize(_ bytes: UnsafeRawBufferPointer) throws -> (Int, Int) {
        // IHDR is the first chunk: width and height are big-endian at offsets 16 and 20.
        guard bytes.count >= 33, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            throw ImagingError(.corrupt, "the PNG header is damaged")
        }
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
        return (u32(16), u32(20))
    }

    private static func decodePNG(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int) throws -> RGBImage {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count) != 0 else {
            throw ImagingError(.corrupt, "the PNG is damaged: \(message(of: image))")
        }
        guard Int(image.width) == width, Int(image.height) == height else {
            png_image_free(&image)
            throw ImagingError(.corrupt, "the PNG header is damaged")
        }
        image.format = UInt32(PNG_FORMAT_RGB)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        guard png_image_finish_read(&image, nil, &pixels, 0, nil) != 0 else {
            let text = message(of: image)
            png_image_free(&image)
            // libpng reading from memory says "read beyond end of data" when the file stops early.
            let truncated = ["beyond end", "read error", "eof"].contains { text.lowercased().contains($0) }
            throw ImagingError(truncated ? .truncated : .corrupt, truncated ? "the PNG is truncated" : "the PNG is damaged: \(text)")
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    private static func message(of image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static func decodeWebP(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int) throws -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let count = pixels.count
        let decoded = pixels.withUnsafeMutableBufferPointer { target in
            WebPDecodeRGBInto(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, target.baseAddress, count, Int32(width * 3))
        }
        guard decoded != nil else { throw ImagingError(.corrupt, "the WebP is damaged or truncated") }
        return RGBImage(width: width, height: height, pixels: pixels)
    }
}
