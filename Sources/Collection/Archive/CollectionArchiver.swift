import Foundation
import GRDB
import PlantGuideCore
import PlantGuideImaging
import PlantGuideProtos
import PlantGuideRPC
import SwiftProtobuf

/// A person's whole collection as one archive (a tar of `manifest.json` and `photos/<sha256>`), and back, so a
/// person can move between servers. Import keeps ids, is idempotent (plants already there are left as they
/// are), and validates everything before writing anything.
public struct CollectionArchiver: Sendable {
    typealias Archive = Plantguide_Collection_V1_CollectionArchive

    let writer: any DatabaseWriter
    let photos: PhotoStore
    let now: @Sendable () -> Date

    public init(writer: any DatabaseWriter, photos: PhotoStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.writer = writer
        self.photos = photos
        self.now = now
    }

    /// An archive holding `plants` only, for tools that load collections (benchmarks, migrations from elsewhere).
    public static func archive(of plants: [Plantguide_Collection_V1_Plant], modified: Date = Date()) throws -> Data {
        let manifest = Archive.with {
            $0.version = 1
            $0.plants = plants
        }
        return TarArchive.write([.init(name: "manifest.json", data: try manifest.jsonUTF8Data())], modified: modified)
    }

    /// The archive of everything `owner` has.
    public func export(owner: String) async throws -> Data {
        var archive = try await writer.read { db in try Self.manifest(db, owner: owner) }
        archive.exportedAt = Google_Protobuf_Timestamp(date: now())
        var entries: [TarArchive.Entry] = []
        var readable: [Plantguide_Collection_V1_ArchivedPhoto] = []
        for photo in archive.photos {
            do {
                let (data, _, _) = try await photos.get(sha: photo.sha256, thumbnailSize: 0, owner: owner)
                entries.append(.init(name: "photos/\(photo.sha256)", data: data))
                readable.append(photo)
            } catch let error as CollectionError where error.code == .dataLoss {
                continue  // a photo whose file is gone is left out rather than failing the whole export
            }
        }
        archive.photos = readable
        entries.insert(.init(name: "manifest.json", data: try archive.jsonUTF8Data()), at: 0)
        let modified = now()
        return await BlockingWork.run { [entries] in TarArchive.write(entries, modified: modified) }
    }

    /// Imports an archive made by `export`.
    /// - Throws: INVALID_ARGUMENT saying what is wrong; nothing is written then.
    public func `import`(_ data: Data, owner: String) async throws -> (imported: Int, unchanged: Int, photos: Int) {
        let maxPhotoBytes = photos.maxBytes
        let (archive, photoData) = try await BlockingWork.run { try Self.validated(data, maxPhotoBytes: maxPhotoBytes) }
        for photo in archive.photos {
            try await photos.storeFiles(photoData[photo.sha256]!, sha: photo.sha256)
        }
        let time = now().timeIntervalSince1970
        let photos = self.photos
        let remake: @Sendable () throws -> Void = {
            for photo in archive.photos { try photos.remakeFiles(photoData[photo.sha256]!, sha: photo.sha256) }
        }
        return try await photos.withFilesPresent("of the archive", remake: remake) { db in
            // Under the write lock: files a concurrent delete removed since they were written are made again.
            for photo in archive.photos {
                let mediaType = try ImageDecoder.inspect(photoData[photo.sha256]!).format.mediaType
                if !photos.files.exist(photo.sha256, mediaType: mediaType) { throw PhotoStore.FilesMissing() }
            }
            var imported = 0
            var unchanged = 0
            for plant in archive.plants {
                if try PlantStore.fetch(db, owner: owner, id: plant.id) != nil {
                    unchanged += 1
                    continue
                }
                let added = plant.hasAddedAt ? PlantRow.seconds(plant.addedAt) : time
                try PlantStore.insert(db, plant, owner: owner, addedAt: added, updatedAt: plant.hasUpdatedAt ? PlantRow.seconds(plant.updatedAt) : added)
                imported += 1
            }
            for record in archive.identifications {
                try HistoryStore.insert(db, record, owner: owner)
            }
            for event in archive.journal {
                try HistoryStore.insert(db, event, owner: owner)
            }
            var newPhotos = 0
            for photo in archive.photos {
                let info = try ImageDecoder.inspect(photoData[photo.sha256]!)
                try db.execute(sql: "INSERT OR IGNORE INTO photo VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [photo.sha256, info.format.mediaType, photoData[photo.sha256]!.count, info.width, info.height, time])
                for link in photo.links {
                    try db.execute(sql: "INSERT OR IGNORE INTO plantPhoto VALUES (?, ?, ?, ?, ?)",
                                   arguments: [owner, link.plantID, photo.sha256, link.kind.rawValue, time])
                    newPhotos += db.changesCount
                }
            }
            return (imported, unchanged, newPhotos)
        }
    }

    private static func manifest(_ db: Database, owner: String) throws -> Archive {
        var archive = Archive()
        archive.version = 1
        archive.plants = try Row.fetchAll(db, sql: "SELECT * FROM plant WHERE ownerID = ? ORDER BY addedAt, id", arguments: [owner])
            .map { row in
                var plant = PlantRow.plant(row)
                plant.ownerID = ""
                return plant
            }
        archive.identifications = try HistoryStore.allIdentifications(db, owner: owner)
        archive.journal = try HistoryStore.allEvents(db, owner: owner)
        var links: [String: Plantguide_Collection_V1_ArchivedPhoto] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT plantPhoto.*, photo.mediaType FROM plantPhoto CROSS JOIN photo USING (sha256) WHERE ownerID = ? ORDER BY sha256, plantID
            """, arguments: [owner]) {
            let sha: String = row["sha256"]
            links[sha, default: .with { $0.sha256 = sha; $0.mediaType = row["mediaType"] }].links.append(.with {
                $0.plantID = row["plantID"]
                $0.kind = .init(rawValue: row["kind"]) ?? .captured
            })
        }
        archive.photos = links.keys.sorted().map { links[$0]! }
        return archive
    }

    /// Reads and checks the whole archive: manifest, plants, references, photo hashes and images.
    private static func validated(_ data: Data, maxPhotoBytes: Int) throws -> (Archive, [String: Data]) {
        let entries = try TarArchive.read(data)
        guard let manifestEntry = entries.first(where: { $0.name == "manifest.json" }) else {
            throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: no manifest.json")
        }
        let archive: Archive
        do {
            archive = try Archive(jsonUTF8Data: manifestEntry.data)
        } catch {
            throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: manifest.json is not a CollectionArchive in proto3 JSON")
        }
        guard archive.version == 1 else {
            throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: version \(archive.version) is not supported")
        }
        var plantIDs: Set<String> = []
        for plant in archive.plants {
            do {
                try PlantStore.validate(plant, requireName: true)
            } catch let error as CollectionError {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: plant \(plant.id): \(error.message)")
            }
            guard plantIDs.insert(plant.id).inserted else {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: plant \(plant.id) twice")
            }
        }
        for record in archive.identifications where !WireTimestamp.isValid(record.identifiedAt) {
            throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: identification \(record.id) has an identified_at out of range")
        }
        for event in archive.journal where !WireTimestamp.isValid(event.occurredAt) {
            throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: journal event \(event.id) has an occurred_at out of range")
        }
        for record in archive.identifications where !record.plantID.isEmpty && !plantIDs.contains(record.plantID) {
            throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: identification \(record.id) names unknown plant \(record.plantID)")
        }
        for event in archive.journal where !plantIDs.contains(event.plantID) || event.id.isEmpty {
            throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: journal event \(event.id) names unknown plant \(event.plantID)")
        }
        var files: [String: Data] = [:]
        for entry in entries where entry.name != "manifest.json" {
            guard entry.name.hasPrefix("photos/") else {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: unexpected file \(entry.name)")
            }
            files[String(entry.name.dropFirst("photos/".count))] = entry.data
        }
        for photo in archive.photos {
            guard let bytes = files[photo.sha256] else {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: photo \(photo.sha256) is missing")
            }
            guard bytes.count <= maxPhotoBytes, ContentHash.sha256(bytes) == photo.sha256 else {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: photo \(photo.sha256) does not match its hash or is too large")
            }
            do {
                _ = try ImageDecoder.inspect(bytes)
            } catch let error as ImagingError {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: photo \(photo.sha256): \(error.message)")
            }
            for link in photo.links where !plantIDs.contains(link.plantID) {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: photo \(photo.sha256) names unknown plant \(link.plantID)")
            }
        }
        guard files.count == archive.photos.count else {
            throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: photos not in the manifest")
        }
        return (archive, files)
    }
}
