import Foundation
import GRDB
import PlantGuideProtos

/// A person's whole collection out of and into SQLite.
extension SQLiteCollection {
    public func manifest(owner: String) async throws -> Archive {
        try await writer.read { db in
            var archive = Archive()
            archive.version = 1
            archive.plants = PlantRow.plants(try Row.fetchAll(db, sql: "SELECT * FROM plant WHERE ownerID = ? ORDER BY addedAt, id",
                                                               arguments: [owner]))
                .map { plant in
                    var plant = plant
                    plant.ownerID = ""
                    return plant
                }
            archive.identifications = try Self.allIdentifications(db, owner: owner)
            archive.journal = try Self.allEvents(db, owner: owner)
            let links = try Row.fetchAll(db, sql: """
                SELECT plantPhoto.*, photo.mediaType FROM plantPhoto CROSS JOIN photo USING (sha256) WHERE ownerID = ? ORDER BY sha256, plantID
                """, arguments: [owner])
            archive.photos = ArchivedPhotos.group(links.map { ($0["sha256"], $0["mediaType"], $0["plantID"], $0["kind"]) })
            return archive
        }
    }

    public func importArchive(_ archive: Archive, photos uploads: [String: PhotoUpload], owner: String, time: Double)
        async throws -> (imported: Int, unchanged: Int, photos: Int) {
        for upload in uploads.values where try await !isStored(upload.sha256) { try await makeFiles(upload) }
        let files = self.files
        let remake: @Sendable () async throws -> Void = {
            for upload in uploads.values { try await makeFiles(upload) }
        }
        return try await withFilesPresent("of the archive", remake: remake) { db in
            // Under the write lock: files a concurrent delete removed since they were written are made again.
            for upload in uploads.values where !files.exist(upload.sha256, mediaType: upload.mediaType) { throw FilesMissing() }
            var imported = 0
            var unchanged = 0
            for plant in archive.plants {
                if try Self.fetch(db, owner: owner, id: plant.id) != nil {
                    unchanged += 1
                    continue
                }
                let added = plant.hasAddedAt ? PlantRow.seconds(plant.addedAt) : time
                try Self.insert(db, plant, owner: owner, addedAt: added, updatedAt: plant.hasUpdatedAt ? PlantRow.seconds(plant.updatedAt) : added)
                imported += 1
            }
            for record in archive.identifications { try Self.insert(db, record, owner: owner) }
            for event in archive.journal { try Self.insert(db, event, owner: owner) }
            var newPhotos = 0
            for photo in archive.photos {
                try Self.insertPhoto(db, uploads[photo.sha256]!, time: time)
                for link in photo.links {
                    try db.execute(sql: "INSERT OR IGNORE INTO plantPhoto VALUES (?, ?, ?, ?, ?)",
                                   arguments: [owner, link.plantID, photo.sha256, link.kind.rawValue, time])
                    newPhotos += db.changesCount
                }
            }
            return (imported, unchanged, newPhotos)
        }
    }
}
