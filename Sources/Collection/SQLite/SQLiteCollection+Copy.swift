import Foundation
import GRDB
import PlantGuideCore

/// A SQLite deployment's rows and photo files, read for a copy into PostgreSQL.
extension SQLiteCollection: CollectionCopySource {
    public func owners() async throws -> [String] {
        try await writer.read { db in
            try String.fetchAll(db, sql: """
                SELECT ownerID FROM plant UNION SELECT ownerID FROM identification UNION SELECT ownerID FROM journalEvent
                UNION SELECT ownerID FROM plantPhoto
                """)
        }
    }

    public func everything(of owner: String) async throws -> OwnerRecords {
        var records = try await writer.read { db in
            var records = OwnerRecords(owner: owner)
            records.plants = PlantRow.plants(try Row.fetchAll(db, sql: "SELECT * FROM plant WHERE ownerID = ? ORDER BY id", arguments: [owner]))
                .map { plant in
                    var plant = plant
                    plant.ownerID = ""
                    return plant
                }
            records.identifications = try Self.allIdentifications(db, owner: owner)
            records.events = try Self.allEvents(db, owner: owner)
            records.links = try Row.fetchAll(db, sql: "SELECT * FROM plantPhoto WHERE ownerID = ? ORDER BY plantID, sha256", arguments: [owner]).map {
                OwnerRecords.PhotoLink(plantID: $0["plantID"], sha256: $0["sha256"], kind: $0["kind"], addedAt: $0["addedAt"])
            }
            records.photos = try Row.fetchAll(db, sql: """
                SELECT * FROM photo WHERE sha256 IN (SELECT sha256 FROM plantPhoto WHERE ownerID = ?) ORDER BY sha256
                """, arguments: [owner]).map {
                OwnerRecords.StoredPhoto(sha256: $0["sha256"], mediaType: $0["mediaType"], width: $0["width"], height: $0["height"],
                                         addedAt: $0["addedAt"], original: Data(), thumbnail256: Data(), thumbnail1024: Data())
            }
            return records
        }
        let files = self.files
        records.photos = await BlockingWork.run { [photos = records.photos] in
            photos.compactMap { photo in
                var photo = photo
                guard let original = try? Data(contentsOf: files.original(photo.sha256, mediaType: photo.mediaType)),
                      let small = try? Data(contentsOf: files.thumbnail(photo.sha256, size: 256)),
                      let large = try? Data(contentsOf: files.thumbnail(photo.sha256, size: 1024)) else { return nil }
                (photo.original, photo.thumbnail256, photo.thumbnail1024) = (original, small, large)
                return photo
            }
        }
        return records
    }
}
