import Foundation
import GRDB
import PlantGuideStorage

/// The care-data cache in SQLite: `caredata.sqlite` (WAL) in the service's data folder.
public struct SQLiteCareEntries: CareEntryStore {
    let writer: TracedDatabase

    /// Opens (creating and migrating) the database at `path`.
    public init(path: String) throws {
        writer = TracedDatabase(try ServiceDatabase.open(path: path, migrator: Self.migrator))
    }

    /// Entries in a database already opened and migrated with ``migrator`` (tests that watch its statements).
    init(writer: any DatabaseWriter) {
        self.writer = TracedDatabase(writer)
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

    public func entry(key: String) async throws -> CareEntryRow? {
        try await writer.read { db in try Row.fetchOne(db, sql: "SELECT * FROM careEntry WHERE key = ?", arguments: [key]).map(Self.row) }
    }

    public func entry(trefleID: Int) async throws -> CareEntryRow? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM careEntry WHERE trefleID = ?", arguments: [trefleID]).map(Self.row)
        }
    }

    public func store(_ row: CareEntryRow) async throws {
        try await writer.write { db in
            if let id = row.trefleID {
                try db.execute(sql: "DELETE FROM careEntry WHERE trefleID = ? AND key <> ?", arguments: [id, row.key])
            }
            try db.execute(
                sql: "INSERT OR REPLACE INTO careEntry (key, trefleID, careJSON, rawJSON, fetchedAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [row.key, row.trefleID, row.careJSON, row.rawJSON, row.fetchedAt])
        }
    }

    public func remove(key: String?, trefleID: Int?) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM careEntry WHERE key = ? OR trefleID = ?", arguments: [key, trefleID])
            return db.changesCount > 0
        }
    }

    public func counts(freshAfter: Date) async throws -> (entries: Int, fresh: Int, notFound: Int) {
        try await writer.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*), SUM(fetchedAt > ?), SUM(careJSON IS NULL) FROM careEntry
                """, arguments: [freshAfter.timeIntervalSince1970])
            return (row?[0] ?? 0, row?[1] ?? 0, row?[2] ?? 0)
        }
    }

    public func rows(after key: String, limit: Int) async throws -> [CareEntryRow] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM careEntry WHERE key > ? ORDER BY key LIMIT ?", arguments: [key, limit]).map(Self.row)
        }
    }

    private static func row(_ row: Row) -> CareEntryRow {
        CareEntryRow(key: row["key"], trefleID: row["trefleID"], careJSON: row["careJSON"], rawJSON: row["rawJSON"],
                     fetchedAt: row["fetchedAt"])
    }
}
