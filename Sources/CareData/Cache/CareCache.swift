import Foundation
import PlantGuideCore

/// The care-data cache, keyed by normalised scientific name and by Trefle id: the mapped care info and the raw
/// Trefle record, and "not found" answers, kept in a ``CareEntryStore`` (SQLite in the service's data folder, or
/// PostgreSQL). Recently used entries are also kept decoded in memory, so that a hit does not read the database.
///
/// ```swift
/// let cache = try CareCache(path: dataDirectory.appendingPathComponent("caredata.sqlite").path)
/// try await cache.store(CareCache.Entry(key: "monstera deliciosa", care: care, raw: bytes, fetchedAt: .now))
/// let entry = try await cache.entry(key: "monstera deliciosa")
/// ```
public struct CareCache: Sendable {
    /// One cached answer.
    public struct Entry: Sendable, Equatable {
        /// `CareCache.key(for:)` of the scientific name.
        public var key: String
        public var trefleID: Int?
        /// Nil for a cached "not found".
        public var care: CareInfo?
        /// The Trefle record the care info was mapped from.
        public var raw: Data?
        public var fetchedAt: Date

        public var isNotFound: Bool { care == nil }

        public init(key: String, trefleID: Int? = nil, care: CareInfo?, raw: Data? = nil, fetchedAt: Date) {
            self.key = key
            self.trefleID = trefleID
            self.care = care
            self.raw = raw
            self.fetchedAt = fetchedAt
        }
    }

    private let entries: any CareEntryStore
    private let recent: RecentEntries

    /// Opens (creating and migrating) the SQLite database at `path`; up to `memoryCapacity` entries stay in memory.
    public init(path: String, memoryCapacity: Int = 10_000) throws {
        self.init(entries: try SQLiteCareEntries(path: path), memoryCapacity: memoryCapacity)
    }

    /// A cache over `entries` (SQLite or PostgreSQL); up to `memoryCapacity` entries stay in memory.
    public init(entries: any CareEntryStore, memoryCapacity: Int = 10_000) {
        recent = RecentEntries(capacity: memoryCapacity)
        self.entries = entries
    }

    /// The cache key of a scientific name: its canonical form, lower-cased. Nil when it holds no name.
    public static func key(for scientificName: String) -> String? {
        ScientificName(scientificName).map(key(for:))
    }

    /// The cache key of a parsed name.
    public static func key(for name: ScientificName) -> String {
        name.canonical.lowercased()
    }

    public func entry(key: String) async throws -> Entry? {
        if let entry = recent.entry(key: key) { return entry }
        return try remember(try await entries.entry(key: key))
    }

    public func entry(trefleID: Int) async throws -> Entry? {
        if let entry = recent.entry(trefleID: trefleID) { return entry }
        return try remember(try await entries.entry(trefleID: trefleID))
    }

    /// Decodes a stored row and keeps the entry in memory.
    private func remember(_ row: CareEntryRow?) throws -> Entry? {
        guard let row else { return nil }
        let entry = Entry(
            key: row.key, trefleID: row.trefleID, care: try row.careJSON.map { try JSONDecoder().decode(CareInfo.self, from: $0) },
            raw: row.rawJSON, fetchedAt: Date(timeIntervalSince1970: row.fetchedAt))
        recent.insert(entry)
        return entry
    }

    /// Inserts or replaces the entry of `entry.key` (and drops another key's claim on the same Trefle id).
    public func store(_ entry: Entry) async throws {
        let careJSON = try entry.care.map { try JSONEncoder().encode($0) }
        try await entries.store(CareEntryRow(key: entry.key, trefleID: entry.trefleID, careJSON: careJSON, rawJSON: entry.raw,
                                             fetchedAt: entry.fetchedAt.timeIntervalSince1970))
        recent.insert(entry)
    }

    /// Removes the entry of a key or of a Trefle id; returns whether there was one.
    public func remove(key: String? = nil, trefleID: Int? = nil) async throws -> Bool {
        recent.remove(key: key, trefleID: trefleID)
        return try await entries.remove(key: key, trefleID: trefleID)
    }

    /// Entry counts: all, fresh (fetched after `freshAfter`), and not-found ones.
    public func counts(freshAfter: Date) async throws -> (entries: Int, fresh: Int, notFound: Int) {
        try await entries.counts(freshAfter: freshAfter)
    }
}
