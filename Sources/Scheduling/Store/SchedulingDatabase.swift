import GRDB

/// The scheduling service's SQLite database (WAL) and its migrations.
public enum SchedulingDatabase {
    public static func open(path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try migrator.migrate(pool)
        return pool
    }

    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: schedules and tasks") { db in
            try db.execute(sql: """
                CREATE TABLE preferences (
                    ownerID TEXT PRIMARY KEY,
                    message BLOB NOT NULL
                );
                CREATE TABLE schedule (
                    ownerID TEXT NOT NULL,
                    plantID TEXT NOT NULL,
                    message BLOB NOT NULL,
                    PRIMARY KEY (ownerID, plantID)
                );
                CREATE TABLE task (
                    ownerID TEXT NOT NULL,
                    id TEXT NOT NULL,
                    plantID TEXT NOT NULL,
                    kind INTEGER NOT NULL,
                    state INTEGER NOT NULL,
                    dueDay INTEGER NOT NULL,
                    remindAt REAL NOT NULL,
                    completedAt REAL,
                    snoozedUntilDay INTEGER,
                    recurring INTEGER NOT NULL,
                    note TEXT NOT NULL DEFAULT '',
                    PRIMARY KEY (ownerID, id)
                );
                CREATE INDEX taskByDay ON task(ownerID, dueDay);
                CREATE INDEX taskByPlant ON task(ownerID, plantID, kind, state);
                CREATE INDEX taskByReminder ON task(state, remindAt);
                """)
        }
        return migrator
    }
}
