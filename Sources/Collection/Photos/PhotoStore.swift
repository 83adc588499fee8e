import Foundation
import PlantGuideCore
import PlantGuideProtos

/// Stores and serves photos of plants: validated by decoding, deduplicated by content, with thumbnails made
/// once at upload. Access goes through the owner's plants: a photo is visible only to owners with a plant
/// showing it.
public struct PhotoStore: Sendable {
    public typealias Photo = Plantguide_Collection_V1_Photo

    let records: any CollectionRecords
    /// Largest photo accepted, in bytes. Default 15 MiB.
    let maxBytes: Int
    let now: @Sendable () -> Date

    public init(records: any CollectionRecords, maxBytes: Int = 15 << 20, now: @escaping @Sendable () -> Date = { Date() }) {
        self.records = records
        self.maxBytes = maxBytes
        self.now = now
    }

    /// Stores `data` as a photo of plant `plantID`.
    /// - Returns: the photo, and whether the owner had these bytes already.
    /// - Throws: INVALID_ARGUMENT saying what is wrong with the image (empty, not an image, truncated, damaged,
    ///   too many pixels, too many bytes); NOT_FOUND for another owner's or a missing plant.
    public func put(_ data: Data, kind: Plantguide_Collection_V1_PhotoKind, plantID: String, owner: String) async throws -> (photo: Photo, deduplicated: Bool) {
        guard data.count <= maxBytes else {
            throw CollectionError.invalidArgument("data", .tooLong, "the photo is \(data.count) bytes; the limit is \(maxBytes) bytes")
        }
        guard try await records.plant(id: plantID, owner: owner) != nil else { throw CollectionError(.notFound, "no plant \(plantID)") }
        let upload = try await PhotoUpload.validated(data)
        // The plant is checked again as the photo is linked: a DeletePlant may have removed it since.
        guard let stored = try await records.putPhoto(upload, kind: kind, plantID: plantID, owner: owner, time: now().timeIntervalSince1970) else {
            throw CollectionError(.notFound, "no plant \(plantID)")
        }
        return stored
    }

    /// The original (`thumbnailSize` 0) or a thumbnail (256 or 1024) of a photo the owner can see.
    public func get(sha: String, thumbnailSize: Int, owner: String) async throws -> (data: Data, mediaType: String, contentSHA256: String) {
        guard ContentHash.isValid(sha) else { throw CollectionError.invalidArgument("sha256", .invalidFormat, "sha256 must be 64 lower-case hex digits") }
        guard thumbnailSize == 0 || PhotoUpload.thumbnailSizes.contains(thumbnailSize) else {
            throw CollectionError.invalidArgument("thumbnail_size", .unknownValue, "thumbnail_size must be 0, 256 or 1024")
        }
        guard let (data, mediaType) = try await records.photoBytes(sha: sha, thumbnailSize: thumbnailSize, owner: owner) else {
            throw CollectionError(.notFound, "no photo \(sha)")
        }
        guard thumbnailSize != 0 else { return (data, mediaType, sha) }
        return (data, mediaType, await BlockingWork.run { ContentHash.sha256(data) })
    }

    /// Takes photo `sha` off plant `plantID` of `owner`; when nothing else shows it any more, its bytes go too.
    /// - Returns: whether the plant showed it, and whether its bytes were removed.
    public func delete(sha: String, plantID: String, owner: String) async throws -> (deleted: Bool, removed: Bool) {
        guard ContentHash.isValid(sha) else { throw CollectionError.invalidArgument("sha256", .invalidFormat, "sha256 must be 64 lower-case hex digits") }
        return try await records.deletePhoto(sha: sha, plantID: plantID, owner: owner)
    }
}
