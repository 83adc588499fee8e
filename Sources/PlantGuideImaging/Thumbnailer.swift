import Foundation

/// Makes JPEG thumbnails whose long side has a given number of pixels, upright.
public enum Thumbnailer {
    /// A thumbnail's bytes and size.
    public struct Thumbnail: Sendable {
        public var jpeg: [UInt8]
        public var width: Int
        public var height: Int
    }

    /// The thumbnail of `data` fitting `longSide` (an image already that small is re-encoded at its size).
    /// - Throws: ``ImagingError`` when `data` is not a decodable image.
    public static func thumbnail(of data: Data, longSide: Int, quality: Int = 82, limits: ImageLimits = .init()) throws -> Thumbnail {
        let image = try ImageDecoder.decode(data, maxLongSide: longSide, limits: limits)
        return Thumbnail(jpeg: try JPEGCodec.encode(image, quality: quality), width: image.width, height: image.height)
    }
}
