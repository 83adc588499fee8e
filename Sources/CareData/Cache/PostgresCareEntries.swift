import Foundation
import PlantGuideStorage
import PostgresNIO

/// The care-data cache in PostgreSQL, in the service's schema: one table shared by every replica. It holds
/// species, not users' data: on a sharded PostgreSQL (Citus) it is a reference table.
public struct PostgresCareEntries: CareEntryStore {
    let database: PostgresStorage

    public init(_ database: PostgresStorage) {
        self.database = database
    }

    public static let migrations = [
        PostgresMigration(1, "care entries", [
            """
            CREATE TABLE care_entry (
                key text COLLATE "C" PRIMARY KEY,
                trefle_id bigint UNIQUE,
                care_json bytea,
                raw_json bytea,
                fetched_at double precision NOT NULL
            )
            """,
        ]),
    ]

    private typealias Columns = (String, Int?, Data?, Data?, Double)
    private static let columns = "key, trefle_id, care_json, raw_json, fetched_at"

    public func entry(key: String) async throws -> CareEntryRow? {
        try await database.read { session in
            try await Self.rows(session.query("SELECT \(unescaped: Self.columns) FROM care_entry WHERE key = \(key)"))
                .first
        }
    }

    public func entry(trefleID: Int) async throws -> CareEntryRow? {
        try await database.read { session in
            try await Self.rows(session.query("SELECT \(unescaped: Self.columns) FROM care_entry WHERE trefle_id = \(trefleID)")).first
        }
    }

    public func store(_ row: CareEntryRow) async throws {
        try await database.write { session in
            if let id = row.trefleID {
                try await session.query("DELETE FROM care_entry WHERE trefle_id = \(id) AND key <> \(row.key)")
            }
            try await session.query("""
                INSERT INTO care_entry (\(unescaped: Self.columns))
                VALUES (\(row.key), \(row.trefleID), \(row.careJSON), \(row.rawJSON), \(row.fetchedAt))
                ON CONFLICT (key) DO UPDATE SET trefle_id = excluded.trefle_id, care_json = excluded.care_json,
                    raw_json = excluded.raw_json, fetched_at = excluded.fetched_at
                """)
        }
    }

    public func remove(key: String?, trefleID: Int?) async throws -> Bool {
        try await database.write { session in
            try await session.count("DELETE FROM care_entry WHERE key = \(key) OR trefle_id = \(trefleID) RETURNING 1") > 0
        }
    }

    public func counts(freshAfter: Date) async throws -> (entries: Int, fresh: Int, notFound: Int) {
        try await database.read { session in
            try await session.all("""
                SELECT count(*), count(*) FILTER (WHERE fetched_at > \(freshAfter.timeIntervalSince1970)),
                       count(*) FILTER (WHERE care_json IS NULL)
                FROM care_entry
                """, as: (Int, Int, Int).self).first ?? (0, 0, 0)
        }
    }

    public func rows(after key: String, limit: Int) async throws -> [CareEntryRow] {
        try await database.read { session in
            try await Self.rows(session.query(
                "SELECT \(unescaped: Self.columns) FROM care_entry WHERE key > \(key) ORDER BY key LIMIT \(limit)"))
        }
    }

    private static func rows(_ sequence: PostgresRowSequence) async throws -> [CareEntryRow] {
        var rows: [CareEntryRow] = []
        for try await (key, trefleID, care, raw, fetchedAt) in sequence.decode(Columns.self) {
            rows.append(CareEntryRow(key: key, trefleID: trefleID, careJSON: care, rawJSON: raw, fetchedAt: fetchedAt))
        }
        return rows
    }
}
