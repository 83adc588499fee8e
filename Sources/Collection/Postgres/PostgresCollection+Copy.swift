import Foundation
import PlantGuideStorage
import PostgresNIO

/// What a copy writes into PostgreSQL, and reads back to compare.
extension PostgresCollection: CollectionCopySource {
    public func owners() async throws -> [String] {
        try await database.read { session in
            try await session.all("""
                SELECT owner_id FROM plant UNION SELECT owner_id FROM identification UNION SELECT owner_id FROM journal_event
                UNION SELECT owner_id FROM plant_photo
                """, as: String.self)
        }
    }

    public func everything(of owner: String) async throws -> OwnerRecords {
        try await database.read { session in
            var records = OwnerRecords(owner: owner)
            records.plants = try await PostgresPlantRow.plants(session.query("""
                SELECT \(unescaped: PostgresPlantRow.columns) FROM plant WHERE owner_id = \(owner) ORDER BY id
                """)).map { plant in
                    var plant = plant
                    plant.ownerID = ""
                    return plant
                }
            records.identifications = try await Self.allIdentifications(session, owner: owner)
            records.events = try await Self.allEvents(session, owner: owner)
            records.links = try await session.all("""
                SELECT plant_id, sha256, kind, added_at FROM plant_photo WHERE owner_id = \(owner) ORDER BY plant_id, sha256
                """, as: (String, String, Int, Double).self).map { OwnerRecords.PhotoLink(plantID: $0.0, sha256: $0.1, kind: $0.2, addedAt: $0.3) }
            records.photos = try await session.all("""
                SELECT sha256, media_type, width, height, added_at, original, thumbnail_256, thumbnail_1024
                FROM photo WHERE owner_id = \(owner) ORDER BY sha256
                """, as: (String, String, Int, Int, Double, Data, Data, Data).self).map {
                OwnerRecords.StoredPhoto(sha256: $0.0, mediaType: $0.1, width: $0.2, height: $0.3, addedAt: $0.4,
                                         original: $0.5, thumbnail256: $0.6, thumbnail1024: $0.7)
            }
            return records
        }
    }

    /// Writes `records` in one transaction, each row replacing the row of the same key: running a copy again
    /// converges on the source. Links to photos not among `records.photos` are left out.
    public func replace(_ records: OwnerRecords) async throws {
        let owner = records.owner
        try await database.write { session in
            for plant in records.plants {
                let added = PlantRow.seconds(plant.addedAt)
                if try await !Self.insert(session, plant, owner: owner, addedAt: added, updatedAt: PlantRow.seconds(plant.updatedAt)) {
                    try await Self.update(session, plant, owner: owner, addedAt: added, updatedAt: PlantRow.seconds(plant.updatedAt))
                }
            }
            for record in records.identifications {
                try await session.query("DELETE FROM identification WHERE owner_id = \(owner) AND id = \(record.id)")
                try await Self.insert(session, record, owner: owner)
            }
            for event in records.events {
                try await session.query("DELETE FROM journal_event WHERE owner_id = \(owner) AND id = \(event.id)")
                try await Self.insert(session, event, owner: owner)
            }
            for photo in records.photos {
                try await session.query("""
                    INSERT INTO photo (owner_id, sha256, media_type, size_bytes, width, height, added_at, original, thumbnail_256, thumbnail_1024)
                    VALUES (\(owner), \(photo.sha256), \(photo.mediaType), \(photo.original.count), \(photo.width), \(photo.height),
                            \(photo.addedAt), \(photo.original), \(photo.thumbnail256), \(photo.thumbnail1024))
                    ON CONFLICT (owner_id, sha256) DO UPDATE SET media_type = excluded.media_type, size_bytes = excluded.size_bytes,
                        width = excluded.width, height = excluded.height, added_at = excluded.added_at, original = excluded.original,
                        thumbnail_256 = excluded.thumbnail_256, thumbnail_1024 = excluded.thumbnail_1024
                    """)
            }
            let stored = Set(records.photos.map(\.sha256))
            for link in records.links where stored.contains(link.sha256) {
                try await session.query("""
                    INSERT INTO plant_photo (owner_id, plant_id, sha256, kind, added_at)
                    VALUES (\(owner), \(link.plantID), \(link.sha256), \(link.kind), \(link.addedAt))
                    ON CONFLICT (owner_id, plant_id, sha256) DO UPDATE SET kind = excluded.kind, added_at = excluded.added_at
                    """)
            }
        }
    }
}
