import Foundation
import PlantGuideCore
import PlantGuideImaging

/// A photo that passed validation (it decodes, within limits), with its content hash: what a backend stores.
public struct PhotoUpload: Sendable {
    public let data: Data
    public let sha256: String
    public let mediaType: String
    public let width: Int
    public let height: Int

    /// The thumbnail sizes made for every photo (the long side, in pixels).
    public static let thumbnailSizes = [256, 1024]

    /// Hashes and inspects `data` (off the cooperative pool: a large photo takes milliseconds).
    /// - Throws: INVALID_ARGUMENT, for `field`, saying what is wrong with the image.
    public static func validated(_ data: Data, field: String = "data") async throws -> PhotoUpload {
        do {
            return try await BlockingWork.run {
                let info = try ImageDecoder.inspect(data)
                return PhotoUpload(data: data, sha256: ContentHash.sha256(data), mediaType: info.format.mediaType, width: info.width, height: info.height)
            }
        } catch let error as ImagingError {
            throw CollectionError.invalidArgument(field, .invalidFormat, error.message)
        }
    }

    /// JPEG thumbnails at every size of ``thumbnailSizes``, decoding the photo once (off the cooperative pool).
    public func thumbnails() async throws -> [Int: Data] {
        let data = self.data
        let sha = sha256
        do {
            return try await BlockingWork.run {
                let decoded = try ImageDecoder.decode(data, maxLongSide: Self.thumbnailSizes.max()!)
                var thumbnails: [Int: Data] = [:]
                for size in Self.thumbnailSizes {
                    let fitted = decoded.fittingSize(longSide: size)
                    thumbnails[size] = Data(try JPEGCodec.encode(decoded.resized(width: fitted.width, height: fitted.height)))
                }
                return thumbnails
            }
        } catch let error as ImagingError {
            throw CollectionError.invalidArgument("data", .invalidFormat, "photo \(sha): \(error.message)")
        }
    }
}
