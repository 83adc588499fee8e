import GRDB
import PlantGuideProtos
import PlantGuideStorage

/// Photo metadata as rows: table `photo` (one row per content hash) joined with the links of `plantPhoto`.
enum PhotoRows {
    typealias Photo = Plantguide_Collection_V1_Photo

    /// The photos of one plant, newest first.
    static func photos(_ db: Database, owner: String, plantID: String) throws -> [Photo] {
        try photos(db, owner: owner, plantIDs: [plantID])[plantID] ?? []
    }

    /// The photos of several plants (one query for a page), newest first, by plant id. CROSS JOIN makes SQLite
    /// read the owner's links first and look each photo up by its hash, whatever its statistics say.
    static func photos(_ db: Database, owner: String, plantIDs: [String]) throws -> [String: [Photo]] {
        guard !plantIDs.isEmpty else { return [:] }
        let sql = """
            SELECT photo.*, plantPhoto.plantID, plantPhoto.kind, plantPhoto.addedAt AS linkedAt FROM plantPhoto
            CROSS JOIN photo USING (sha256)
            WHERE plantPhoto.ownerID = ? AND plantPhoto.plantID IN (\(plantIDs.map { _ in "?" }.joined(separator: ", ")))
            ORDER BY plantPhoto.addedAt DESC, photo.sha256
            """
        // One plant's statement (a plant's details) is prepared once per connection; a page's, whose SQL varies
        // with its size, each time. The values are typed as existentials: GRDB's initializer for a sequence of
        // strings maps with a key path that the runtime builds again on every call.
        let values: [(any DatabaseValueConvertible)?] = [owner] + plantIDs
        let rows = try Row.fetchAll(db.statement(sql: sql, cached: plantIDs.count == 1), arguments: StatementArguments(values))
        return Dictionary(grouping: rows, by: { $0["plantID"] as String }).mapValues { $0.map(photo) }
    }

    private static func photo(_ row: Row) -> Photo {
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
