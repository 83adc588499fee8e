import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideStorage

/// Moves a collection from a SQLite deployment (rows and photo files) into PostgreSQL, and proves the copy.
public enum CollectionCopy {
    /// Copies everything of every owner of `source` into `target` (replacing rows of the same key, so running it
    /// again is harmless), then compares the two table by table.
    /// - Parameter progress: told the number of owners copied so far.
    public static func copy(from source: SQLiteCollection, to target: PostgresCollection, progress: (Int) -> Void = { _ in }) async throws -> [CopyCheck] {
        var copied = 0
        for owner in try await source.owners() {
            try await target.replace(try await source.everything(of: owner))
            copied += 1
            if copied % 100 == 0 { progress(copied) }
        }
        progress(copied)
        return try await compare(source, target)
    }

    /// Compares plants, identifications, journal events, photo links and photos (bytes and thumbnails) of two
    /// backends, row by row in owner and key order.
    public static func compare(_ source: any CollectionCopySource, _ target: any CollectionCopySource) async throws -> [CopyCheck] {
        let sourceOwners = try await source.owners().sorted()
        let targetOwners = try await target.owners().sorted()
        var checks: [CopyCheck] = []
        for table in Table.allCases {
            checks.append(try await CopyCheck.compare(
                table.rawValue, source: Pages(store: source, owners: sourceOwners, table: table).after,
                target: Pages(store: target, owners: targetOwners, table: table).after, key: \.key, encode: \.bytes))
        }
        return checks
    }

    enum Table: String, CaseIterable {
        case plants
        case identifications
        case journal = "journal events"
        case links = "photo links"
        case photos

        /// This table's rows of `records`, sorted by key.
        func rows(_ records: OwnerRecords) throws -> [KeyedRow] {
            let owner = records.owner
            let rows: [KeyedRow] = switch self {
            case .plants: try records.plants.map { KeyedRow(owner, $0.id, try $0.serializedBytes()) }
            case .identifications: try records.identifications.map { KeyedRow(owner, $0.id, try $0.serializedBytes()) }
            case .journal: try records.events.map { KeyedRow(owner, $0.id, try $0.serializedBytes()) }
            case .links: records.links.map { link in
                var bytes = RowBytes()
                bytes.add(link.kind)
                bytes.add(link.addedAt)
                return KeyedRow(owner, link.plantID + "\u{1}" + link.sha256, bytes.bytes)
            }
            case .photos: records.photos.map { photo in
                var bytes = RowBytes()
                bytes.add(photo.mediaType)
                bytes.add(photo.width)
                bytes.add(photo.height)
                bytes.add(photo.addedAt)
                bytes.add(photo.original)
                bytes.add(photo.thumbnail256)
                bytes.add(photo.thumbnail1024)
                return KeyedRow(owner, photo.sha256, bytes.bytes)
            }
            }
            return rows.sorted { $0.key < $1.key }
        }
    }

    /// A row under its owner and key, as bytes (owner and key included).
    struct KeyedRow: Sendable {
        var key: String
        var bytes: [UInt8]

        init(_ owner: String, _ id: String, _ content: [UInt8]) {
            key = owner + "\u{1}" + id
            var bytes = RowBytes()
            bytes.add(key)
            bytes.add(content)
            self.bytes = bytes.bytes
        }
    }

    /// One table of a backend, an owner at a time, for ``CopyCheck``.
    struct Pages: Sendable {
        let store: any CollectionCopySource
        let owners: [String]
        let table: Table

        /// The rows after `key` ("" for the first): the rest of that owner's, or the next owner's with any.
        func after(_ key: String) async throws -> [KeyedRow] {
            let owner = key.isEmpty ? nil : String(key.prefix { $0 != "\u{1}" })
            var index = owner.map { owner in owners.firstIndex { $0 >= owner } ?? owners.count } ?? 0
            while index < owners.count {
                let rows = try table.rows(try await store.everything(of: owners[index])).filter { $0.key > key }
                if !rows.isEmpty { return rows }
                index += 1
            }
            return []
        }
    }
}
