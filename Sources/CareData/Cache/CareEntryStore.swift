import Foundation

/// A cached answer as it is stored: the care info as JSON (nil for "not found"), the raw Trefle record, and when
/// it was fetched. Both backends store exactly these bytes, so a copy between them keeps every entry's content.
public struct CareEntryRow: Sendable, Equatable {
    public var key: String
    public var trefleID: Int?
    public var careJSON: Data?
    public var rawJSON: Data?
    /// Seconds since 1970.
    public var fetchedAt: Double

    public init(key: String, trefleID: Int?, careJSON: Data?, rawJSON: Data?, fetchedAt: Double) {
        self.key = key
        self.trefleID = trefleID
        self.careJSON = careJSON
        self.rawJSON = rawJSON
        self.fetchedAt = fetchedAt
    }
}

/// Where the care-data cache keeps its entries: SQLite (``SQLiteCareEntries``, the default) or PostgreSQL
/// (``PostgresCareEntries``, for replicas). Keyed by normalised scientific name, and by Trefle id (unique).
public protocol CareEntryStore: Sendable {
    func entry(key: String) async throws -> CareEntryRow?
    func entry(trefleID: Int) async throws -> CareEntryRow?
    /// Inserts or replaces the entry of `row.key`, dropping another key's claim on the same Trefle id.
    func store(_ row: CareEntryRow) async throws
    /// Removes the entry of a key or of a Trefle id; returns whether there was one.
    func remove(key: String?, trefleID: Int?) async throws -> Bool
    /// All entries, fresh ones (fetched after `freshAfter`), and "not found" ones.
    func counts(freshAfter: Date) async throws -> (entries: Int, fresh: Int, notFound: Int)
    /// Up to `limit` entries after `key` in key order (byte order): for copying a cache to another store.
    func rows(after key: String, limit: Int) async throws -> [CareEntryRow]
}
