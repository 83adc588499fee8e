import GRDB

/// How every PlantGuide service opens its SQLite database: a GRDB `DatabasePool` (WAL mode, so reads never wait
/// for a write, and a committed transaction survives a crash of the process), foreign keys on, a 5-second busy
/// timeout, and the service's migrations applied before the first query.
public enum ServiceDatabase {
    /// Opens (creating and migrating) the database at `path`.
    public static func open(path: String, migrator: DatabaseMigrator) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try migrator.migrate(pool)
        return pool
    }
}
