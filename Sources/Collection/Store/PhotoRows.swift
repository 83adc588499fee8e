import GRDB
import PlantGuideProtos

/// Photo metadata as rows: table `photo` (one row per content hash) joined with the links of `plantPhoto`.
enum PhotoRows {
    typealias Photo = Plantguide_Collection_V1_Photo

    /// The photos of one plant, newest first.
    static func photos(_ db: Database, owner: String, plantID: String) throws -> [Photo] {
        try Row.fetchAll(db, sql: """
            SELECT photo.*, plantPhoto.kind, plantPhoto.addedAt AS linkedAt FROM plantPhoto
            JOIN photo USING (sha256)
            WHERE plantPhoto.ownerID = ? AND plantPhoto.plantID = ?
            ORDER BY plantPhoto.addedAt DESC, photo.sha256
            """, arguments: [owner, plantID]).map { row in
            var photo = Photo()
            photo.sha256 = row["sha256"]
            photo.kind = .init(rawValue: row["kind"]) ?? .unspecified
            photo.sizeBytes = row["sizeBytes"]
            photo.mediaType = row["mediaType"]
            photo.width = row["width"]
            photo.height = row["height"]
            photo.addedAt = PlantRow.timestamp(row["linkedAt"])
            return photo
        }
    }
}
