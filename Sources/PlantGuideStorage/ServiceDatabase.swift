import GRDB
import Synchronization

/// How every PlantGuide service opens its SQLite database: a GRDB `DatabasePool` (WAL mode, so reads never wait
/// for a write, and a committed transaction survives a crash of the process), foreign keys on, a 5-second busy
/// timeout, and the service's migrations applied before the first query.
public enum ServiceDatabase {
    /// Opens (creating and migrating) the database at `path`. ``DatabaseMaintenance`` keeps its statistics current.
    /// - Parameter prepare: run on every connection as it opens (SQL functions the schema's triggers call).
    public static func open(path: String, migrator: DatabaseMigrator, prepare: (@Sendable (Database) throws -> Void)? = nil) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        if let prepare { configuration.prepareDatabase(prepare) }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try migrator.migrate(pool)
        opened.withLock { pools in
            pools.removeAll { $0.pool == nil }
            pools.append(WeakPool(pool: pool))
        }
        return pool
    }

    /// Runs SQLite's `PRAGMA optimize` on every database this process opened and still holds: it gathers the
    /// statistics (`ANALYZE`, bounded by `analysis_limit`) of the tables whose queries would plan better with
    /// them, as SQLite recommends doing periodically and before closing a long-lived connection.
    public static func optimizeAll() async {
        for pool in opened.withLock({ $0.compactMap(\.pool) }) {
            try? await pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA analysis_limit = 1000; PRAGMA optimize")
            }
        }
    }

    private struct WeakPool: @unchecked Sendable {  // DatabasePool is Sendable; the weak box only holds it
        weak var pool: DatabasePool?
    }

    private static let opened = Mutex<[WeakPool]>([])
}
