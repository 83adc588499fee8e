import Foundation
import PlantGuideProtos
import PlantGuideStorage
import PostgresNIO

/// A person's whole collection out of and into PostgreSQL.
extension PostgresCollection {
    public func manifest(owner: String) async throws -> Archive {
        try await database.read { session in
            var archive = Archive()
            archive.version = 1
            archive.plants = try await PostgresPlantRow.plants(session.query("""
                SELECT \(unescaped: PostgresPlantRow.columns) FROM plant WHERE owner_id = \(owner) ORDER BY added_at, id
                """)).map { plant in
                    var plant = plant
                    plant.ownerID = ""
                    return plant
                }
            archive.identifications = try await Self.allIdentifications(session, owner: owner)
            archive.journal = try await Self.allEvents(session, owner: owner)
            let links = try await session.all("""
                SELECT plant_photo.sha256, photo.media_type, plant_photo.plant_id, plant_photo.kind
                FROM plant_photo JOIN photo USING (owner_id, sha256)
                WHERE plant_photo.owner_id = \(owner) ORDER BY plant_photo.sha256, plant_photo.plant_id
                """, as: (String, String, String, Int).self)
            archive.photos = ArchivedPhotos.group(links.map { (sha: $0.0, mediaType: $0.1, plantID: $0.2, kind: $0.3) })
            return archive
        }
    }

    public func importArchive(_ archive: Archive, photos uploads: [String: PhotoUpload], owner: String, time: Double)
        async throws -> (imported: Int, unchanged: Int, photos: Int) {
        let held: [String] = try await database.read { session in
            try await session.all("SELECT sha256 FROM photo WHERE owner_id = \(owner) AND sha256 = ANY(\(Array(uploads.keys)))", as: String.self)
        }
        var thumbnails: [String: [Int: Data]] = [:]
        for upload in uploads.values where !held.contains(upload.sha256) { thumbnails[upload.sha256] = try await upload.thumbnails() }
        for _ in 0..<3 {
            do {
                return try await database.write { [thumbnails] session in
                    var imported = 0
                    for plant in archive.plants {
                        let added = plant.hasAddedAt ? PlantRow.seconds(plant.addedAt) : time
                        let updated = plant.hasUpdatedAt ? PlantRow.seconds(plant.updatedAt) : added
                        if try await Self.insert(session, plant, owner: owner, addedAt: added, updatedAt: updated) { imported += 1 }
                    }
                    // Plants before photos, as every writer takes them, so that a concurrent deletion cannot deadlock.
                    let ids = archive.plants.map(\.id)
                    guard try await Self.lockPlants(session, owner: owner, ids: ids) == Set(ids).count else {
                        throw CollectionError(.aborted, "a plant of the archive was deleted while it was imported; retry")
                    }
                    for record in archive.identifications { try await Self.insert(session, record, owner: owner) }
                    for event in archive.journal { try await Self.insert(session, event, owner: owner) }
                    var newLinks = 0
                    for photo in archive.photos.sorted(by: { $0.sha256 < $1.sha256 }) {
                        try await Self.lockOrStore(session, uploads[photo.sha256]!, thumbnails: thumbnails[photo.sha256], owner: owner, time: time)
                        for link in photo.links {
                            newLinks += try await session.count("""
                                INSERT INTO plant_photo (owner_id, plant_id, sha256, kind, added_at)
                                VALUES (\(owner), \(link.plantID), \(photo.sha256), \(link.kind.rawValue), \(time))
                                ON CONFLICT DO NOTHING
                                RETURNING 1
                                """)
                        }
                    }
                    return (imported, archive.plants.count - imported, newLinks)
                }
            } catch is PhotoGone {
                for upload in uploads.values where thumbnails[upload.sha256] == nil { thumbnails[upload.sha256] = try await upload.thumbnails() }
            }
        }
        throw CollectionError(.aborted, "photos of the archive were removed three times while being stored; retry")
    }
}
