import Foundation
import PlantGuideProtos
import PlantGuideStorage
import PostgresNIO

/// Photos in PostgreSQL: per owner, bytes and thumbnails in the row, deduplicated by content hash. Thumbnails are
/// made (off the cooperative pool) only when the owner does not have the bytes; when a deletion removed them
/// between that check and the transaction, the transaction is run again with them.
extension PostgresCollection {
    public func putPhoto(_ upload: PhotoUpload, kind: Plantguide_Collection_V1_PhotoKind, plantID: String, owner: String, time: Double)
        async throws -> (photo: Photo, deduplicated: Bool)? {
        let held = try await database.read { session in
            try await session.count("SELECT 1 FROM photo WHERE owner_id = \(owner) AND sha256 = \(upload.sha256)") > 0
        }
        var thumbnails = held ? nil : try await upload.thumbnails()
        for _ in 0..<3 {
            do {
                return try await database.write { [thumbnails] session in
                    guard try await Self.lockPlants(session, owner: owner, ids: [plantID]) == 1 else { throw PlantMissing() }
                    try await Self.lockOrStore(session, upload, thumbnails: thumbnails, owner: owner, time: time)
                    let hadIt = try await session.count("SELECT 1 FROM plant_photo WHERE owner_id = \(owner) AND sha256 = \(upload.sha256) LIMIT 1") > 0
                    try await session.query("""
                        INSERT INTO plant_photo (owner_id, plant_id, sha256, kind, added_at)
                        VALUES (\(owner), \(plantID), \(upload.sha256), \((kind == .unspecified ? .captured : kind).rawValue), \(time))
                        ON CONFLICT DO NOTHING
                        """)
                    let photos = try await PostgresPhotoRows.photos(session, owner: owner, plantIDs: [plantID])[plantID] ?? []
                    return (photos.first { $0.sha256 == upload.sha256 }!, hadIt)
                }
            } catch is PhotoGone {
                thumbnails = try await upload.thumbnails()
            } catch is PlantMissing {
                return nil
            }
        }
        throw CollectionError(.aborted, "photo \(upload.sha256) was removed three times while being stored; retry")
    }

    public func photoBytes(sha: String, thumbnailSize: Int, owner: String) async throws -> (data: Data, mediaType: String)? {
        let column = switch thumbnailSize {
        case 256: "thumbnail_256"
        case 1024: "thumbnail_1024"
        default: "original"
        }
        return try await database.read { session in
            try await session.all("""
                SELECT \(unescaped: column), media_type FROM photo
                WHERE owner_id = \(owner) AND sha256 = \(sha)
                    AND EXISTS (SELECT 1 FROM plant_photo WHERE plant_photo.owner_id = photo.owner_id AND plant_photo.sha256 = photo.sha256)
                """, as: (Data, String).self).first.map { ($0.0, thumbnailSize == 0 ? $0.1 : "image/jpeg") }
        }
    }

    public func deletePhoto(sha: String, plantID: String, owner: String) async throws -> (deleted: Bool, removed: Bool) {
        try await database.write { session in
            let unlinked = try await session.count("""
                DELETE FROM plant_photo WHERE owner_id = \(owner) AND plant_id = \(plantID) AND sha256 = \(sha) RETURNING 1
                """)
            guard unlinked > 0 else { return (false, false) }
            return (true, try await Self.removeUnlinkedPhotos(session, owner: owner, candidates: [sha]) > 0)
        }
    }

    /// Locks the owner's plants of `ids` (in id order, against a concurrent deletion) and returns how many exist.
    static func lockPlants(_ session: PostgresSession, owner: String, ids: [String]) async throws -> Int {
        try await session.count("SELECT 1 FROM plant WHERE owner_id = \(owner) AND id = ANY(\(ids)) ORDER BY id FOR KEY SHARE")
    }

    /// Locks the owner's row of the photo, storing it with `thumbnails` when there is none.
    /// - Throws: ``PhotoGone`` when there is none and no thumbnails were made (a deletion got there first).
    static func lockOrStore(_ session: PostgresSession, _ upload: PhotoUpload, thumbnails: [Int: Data]?, owner: String, time: Double) async throws {
        guard let thumbnails else {
            guard try await session.count("SELECT 1 FROM photo WHERE owner_id = \(owner) AND sha256 = \(upload.sha256) FOR UPDATE") > 0 else {
                throw PhotoGone()
            }
            return
        }
        // An upsert, not DO NOTHING: it locks the row whether it inserts it or finds it.
        try await session.query("""
            INSERT INTO photo (owner_id, sha256, media_type, size_bytes, width, height, added_at, original, thumbnail_256, thumbnail_1024)
            VALUES (\(owner), \(upload.sha256), \(upload.mediaType), \(upload.data.count), \(upload.width), \(upload.height), \(time),
                    \(upload.data), \(thumbnails[256]!), \(thumbnails[1024]!))
            ON CONFLICT (owner_id, sha256) DO UPDATE SET media_type = photo.media_type
            """)
    }

    /// Thrown inside a transaction whose photo row a deletion removed since the owner was found to have it.
    struct PhotoGone: Error {}

    /// Thrown inside a transaction whose plant is not the owner's (or was just deleted), to roll it back.
    struct PlantMissing: Error {}
}
