import Foundation
import GRDB
import PlantGuideStorage
import PlantGuideCore

/// The care-data cache: one SQLite database (WAL) in the service's data folder, keyed by normalised scientific
/// name and by Trefle id. It stores the mapped care info and the raw Trefle record, and "not found" answers.
/// Recently used entries are also kept decoded in memory, so that a hit does not read the database.
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

    private let writer: any DatabaseWriter
    private let recent: RecentEntries

    /// Opens (creating and migrating) the database at `path`; up to `memoryCapacity` entries stay in memory.
    public init(path: String, memoryCapacity: Int = 10_000) throws {
        self.init(writer: try ServiceDatabase.open(path: path, migrator: Self.migrator), memoryCapacity: memoryCapacity)
    }

    /// A cache over a database already opened and migrated with ``migrator`` (tests that watch its statements).
    init(writer: any DatabaseWriter, memoryCapacity: Int = 10_000) {
        recent = RecentEntries(capacity: memoryCapacity)
        self.writer = writer
    }

    /// The cache key of a scientific name: its canonical form, lower-cased. Nil when it holds no name.
    public static func key(for scientificName: String) -> String? {
        ScientificName(scientificName).map(key(for:))
    }

    /// The cache key of a parsed name.
    public static func key(for name: ScientificName) -> String {
        name.canonical.lowercased()
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: care entries") { db in
            try db.create(table: "careEntry") { table in
                table.primaryKey("key", .text)
                table.column("trefleID", .integer).unique()
                table.column("careJSON", .blob)
                table.column("rawJSON", .blob)
                table.column("fetchedAt", .double).notNull()
            }
        }
        return migrator
    }

    public func entry(key: String) async throws -> Entry? {
        if let entry = recent.entry(key: key) { return entry }
        return try await load(where: "key = ?", key)
    }

    public func entry(trefleID: Int) async throws -> Entry? {
        if let entry = recent.entry(trefleID: trefleID) { return entry }
        return try await load(where: "trefleID = ?", trefleID)
    }

    /// Reads one entry from the database and keeps it in memory.
    private func load(where condition: String, _ value: some DatabaseValueConvertible & Sendable) async throws -> Entry? {
        let entry = try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM careEntry WHERE \(condition)", arguments: [value]).map(Self.entry)
        }
        if let entry { recent.insert(entry) }
        return entry
    }

    /// Inserts or replaces the entry of `entry.key` (and drops another key's claim on the same Trefle id).
    public func store(_ entry: Entry) async throws {
        let careJSON = try entry.care.map { try JSONEncoder().encode($0) }
        try await writer.write { db in
            if let id = entry.trefleID {
                try db.execute(sql: "DELETE FROM careEntry WHERE trefleID = ? AND key <> ?", arguments: [id, entry.key])
            }
            try db.execute(
                sql: "INSERT OR REPLACE INTO careEntry (key, trefleID, careJSON, rawJSON, fetchedAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [entry.key, entry.trefleID, careJSON, entry.raw, entry.fetchedAt.timeIntervalSince1970])
        }
        recent.insert(entry)
    }

    /// Removes the entry of a key or of a Trefle id; returns whether there was one.
    public func remove(key: String? = nil, trefleID: Int? = nil) async throws -> Bool {
        recent.remove(key: key, trefleID: trefleID)
        return try await writer.write { db in
            try db.execute(sql: "DELETE FROM careEntry WHERE key = ? OR trefleID = ?", arguments: [key, trefleID])
            return db.changesCount > 0
        }
    }

    /// Entry counts: all, fresh (fetched after `freshAfter`), and not-found ones.
    public func counts(freshAfter: Date) async throws -> (entries: Int, fresh: Int, notFound: Int) {
        try await writer.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*), SUM(fetchedAt > ?), SUM(careJSON IS NULL) FROM careEntry
                """, arguments: [freshAfter.timeIntervalSince1970])
            return (row?[0] ?? 0, row?[1] ?? 0, row?[2] ?? 0)
        }
    }

    private static func entry(_ row: Row) throws -> Entry {
        let careJSON: Data? = row["careJSON"]
        return Entry(
            key: row["key"], trefleID: row["trefleID"],
            care: try careJSON.map { try JSONDecoder().decode(CareInfo.self, from: $0) },
            raw: row["rawJSON"], fetchedAt: Date(timeIntervalSince1970: row["fetchedAt"]))
    }
}
