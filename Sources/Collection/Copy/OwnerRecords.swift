import Foundation
import PlantGuideProtos

/// Everything one owner has, row for row as stored (times, photo bytes and thumbnails included): what a copy moves
/// between backends and compares.
public struct OwnerRecords: Sendable {
    public var owner: String
    /// Plants with their stored times, without photos.
    public var plants: [Plantguide_Collection_V1_Plant] = []
    public var identifications: [Plantguide_Collection_V1_IdentificationRecord] = []
    public var events: [Plantguide_Collection_V1_JournalEvent] = []
    public var photos: [StoredPhoto] = []
    public var links: [PhotoLink] = []

    public init(owner: String) {
        self.owner = owner
    }

    /// A photo's row: metadata, original and thumbnails.
    public struct StoredPhoto: Sendable {
        public var sha256: String
        public var mediaType: String
        public var width: Int
        public var height: Int
        public var addedAt: Double
        public var original: Data
        public var thumbnail256: Data
        public var thumbnail1024: Data
    }

    /// A plant showing a photo.
    public struct PhotoLink: Sendable {
        public var plantID: String
        public var sha256: String
        public var kind: Int
        public var addedAt: Double
    }
}

/// A backend a copy reads from and compares: every owner, and everything of one.
public protocol CollectionCopySource: Sendable {
    /// Every owner with a row of any kind.
    func owners() async throws -> [String]
    /// Everything of `owner`. Photos whose bytes are gone are left out (their links stay, so a comparison shows them).
    func everything(of owner: String) async throws -> OwnerRecords
}
