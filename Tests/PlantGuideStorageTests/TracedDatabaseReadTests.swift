import Foundation
import GRDB
import PlantGuideStorage
import Testing

/// `TracedDatabase.read`, which every SQLite store's reads go through: GRDB's synchronous read on the process's
/// read threads, never on Swift's cooperative pool.
@Suite("SQLite reads on the process's read threads")
struct TracedDatabaseReadTests {
    @Test("a read runs on a read thread and returns what its transaction read")
    func readRunsOnReadThread() async throws {
        let (database, folder) = try Self.database()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (value, thread) = try await database.read { db in
            (try Int.fetchOne(db, sql: "SELECT x FROM t"), Self.threadName())
        }
        #expect(value == 42)
        #expect(thread.hasPrefix("sqlite-read-"))
    }

    @Test("many more reads at once than read threads all answer, and an error reaches its caller")
    func manyReadsAndAnError() async throws {
        let (database, folder) = try Self.database()
        defer { try? FileManager.default.removeItem(at: folder) }
        let values = try await withThrowingTaskGroup(of: Int?.self) { group in
            for _ in 0..<64 { group.addTask { try await database.read { db in try Int.fetchOne(db, sql: "SELECT x FROM t") } } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values == Array(repeating: 42, count: 64))
        await #expect(throws: DatabaseError.self) {
            try await database.read { db in try Int.fetchOne(db, sql: "SELECT x FROM missing") }
        }
    }

    /// A WAL database in a new temporary folder (for the caller to remove) with one row, 42.
    private static func database() throws -> (TracedDatabase, URL) {
        let folder = FileManager.default.temporaryDirectory.appending(path: "traced-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: folder.appending(path: "test.sqlite").path)
        try pool.write { db in try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (42)") }
        return (TracedDatabase(pool), folder)
    }

    /// The OS name of the calling thread.
    private static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
