import Foundation
import PlantGuideImaging

/// Photos as Pl@ntNet takes them. Its API allows only image/jpeg and image/png, resizes every photo to 1,280 pixels
/// on the long side and recommends JPEG at quality 90 (my.plantnet.org/doc/faq), so a WebP or HEIC photo is
/// converted to such a JPEG, never upscaled, before it is sent; JPEG and PNG go as they are.
enum PlantNetUpload {
    /// Pl@ntNet's working size: the long side it resizes to.
    static let longSide = 1_280
    /// The JPEG quality it recommends.
    static let quality = 90

    /// `data` ready to send. Blocking CPU work for WebP and HEIC: callers run it through `BlockingWork`.
    /// - Throws: ``ImagingError`` when the photo cannot be read.
    static func image(_ data: Data, organ: PlantNetImage.Organ) throws -> PlantNetImage {
        let format = data.withUnsafeBytes { ImageFormat.detect($0) }
        if let format, format.isAcceptedByPlantNet { return PlantNetImage(data: data, organ: organ, mediaType: format.mediaType) }
        let image = try ImageDecoder.decode(data, maxLongSide: longSide)
        return PlantNetImage(data: Data(try JPEGCodec.encode(image, quality: quality)), organ: organ, mediaType: ImageFormat.jpeg.mediaType)
    }
}
