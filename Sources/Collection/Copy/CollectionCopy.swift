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
        try await OwnerTables.copy(try await source.owners(), progress: progress) { owner in
            try await target.replace(try await source.everything(of: owner))
        }
        return try await compare(source, target)
    }

    /// Compares plants, identifications, journal events, photo links and photos (bytes and thumbnails) of two
    /// backends, row by row in owner and key order.
    public static func compare(_ source: any CollectionCopySource, _ target: any CollectionCopySource) async throws -> [CopyCheck] {
        try await OwnerTables.compare(Table.allCases.map(\.rawValue), source: rows(source), target: rows(target))
    }

    enum Table: String, CaseIterable {
        case plants
        case identifications
        case journal = "journal events"
        case links = "photo links"
        case photos

        /// This table's rows of `records`.
        func rows(_ records: OwnerRecords) throws -> [KeyedRow] {
            let owner = records.owner
            func row(_ id: String, _ content: [UInt8]) -> KeyedRow { KeyedRow(owner: owner, id: id, content: content) }
            switch self {
            case .plants: return try records.plants.map { row($0.id, try $0.serializedBytes()) }
            case .identifications: return try records.identifications.map { row($0.id, try $0.serializedBytes()) }
            case .journal: return try records.events.map { row($0.id, try $0.serializedBytes()) }
            case .links: return records.links.map { link in
                var bytes = RowBytes()
                bytes.add(link.kind)
                bytes.add(link.addedAt)
                return row(link.plantID + "\u{1}" + link.sha256, bytes.bytes)
            }
            case .photos: return records.photos.map { photo in
                var bytes = RowBytes()
                bytes.add(photo.mediaType)
                bytes.add(photo.width)
                bytes.add(photo.height)
                bytes.add(photo.addedAt)
                bytes.add(photo.original)
                bytes.add(photo.thumbnail256)
                bytes.add(photo.thumbnail1024)
                return row(photo.sha256, bytes.bytes)
            }
            }
        }
    }

    /// A backend's tables for ``OwnerTables``: everything of an owner, read for each table.
    static func rows(_ store: any CollectionCopySource) -> OwnerRows {
        OwnerRows(owners: { try await store.owners() }, rows: { owner, table in try Table(rawValue: table)!.rows(try await store.everything(of: owner)) })
    }
}
