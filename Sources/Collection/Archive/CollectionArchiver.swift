import Foundation
import PlantGuideCore
import PlantGuideImaging
import PlantGuideProtos
import PlantGuideRPCCore
import SwiftProtobuf

/// A person's whole collection as one archive (a tar of `manifest.json` and `photos/<sha256>`), and back, so a
/// person can move between servers. Import keeps ids, is idempotent (plants already there are left as they
/// are), and validates everything before writing anything.
public struct CollectionArchiver: Sendable {
    typealias Archive = Plantguide_Collection_V1_CollectionArchive

    let records: any CollectionRecords
    let photos: PhotoStore
    let now: @Sendable () -> Date

    public init(records: any CollectionRecords, photos: PhotoStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.records = records
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
        var archive = try await records.manifest(owner: owner)
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
        let (archive, uploads) = try await BlockingWork.run { try Self.validated(data, maxPhotoBytes: maxPhotoBytes) }
        return try await records.importArchive(archive, photos: uploads, owner: owner, time: now().timeIntervalSince1970)
    }

    /// Reads and checks the whole archive: manifest, plants, references, photo hashes and images.
    private static func validated(_ data: Data, maxPhotoBytes: Int) throws -> (Archive, [String: PhotoUpload]) {
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
        var uploads: [String: PhotoUpload] = [:]
        for photo in archive.photos {
            guard let bytes = files[photo.sha256] else {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: photo \(photo.sha256) is missing")
            }
            guard bytes.count <= maxPhotoBytes, ContentHash.sha256(bytes) == photo.sha256 else {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: photo \(photo.sha256) does not match its hash or is too large")
            }
            do {
                let info = try ImageDecoder.inspect(bytes)
                uploads[photo.sha256] = PhotoUpload(data: bytes, sha256: photo.sha256, mediaType: info.format.mediaType, width: info.width, height: info.height)
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
        return (archive, uploads)
    }
}
