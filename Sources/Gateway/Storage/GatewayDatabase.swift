import GRDB
import PlantGuideStorage

/// The gateway's own SQLite database (WAL): accounts, tokens, calendar links, households' shares, and the
/// cross-service work still to finish (deletions and care lookups that a service being down interrupted).
public enum GatewayDatabase {
    public static func open(path: String) throws -> DatabasePool {
        try ServiceDatabase.open(path: path, migrator: migrator)
    }

    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: accounts and pending work") { db in
            try db.execute(sql: """
                CREATE TABLE user (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    createdAt REAL NOT NULL
                );
                CREATE TABLE token (
                    id TEXT PRIMARY KEY,
                    userID TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    hash BLOB NOT NULL UNIQUE,
                    createdAt REAL NOT NULL,
                    revokedAt REAL
                );
                CREATE TABLE pendingDeletion (
                    userID TEXT NOT NULL,
                    plantID TEXT NOT NULL,
                    since REAL NOT NULL,
                    PRIMARY KEY (userID, plantID)
                );
                CREATE TABLE pendingCare (
                    userID TEXT NOT NULL,
                    plantID TEXT NOT NULL,
                    scientificName TEXT NOT NULL,
                    plantName TEXT NOT NULL,
                    includeRepotting INTEGER NOT NULL,
                    includePruning INTEGER NOT NULL,
                    since REAL NOT NULL,
                    PRIMARY KEY (userID, plantID)
                );
                """)
        }
        migrator.registerMigration("v2: calendar links") { db in
            try db.execute(sql: """
                CREATE TABLE calendarLink (
                    userID TEXT PRIMARY KEY,
                    hash BLOB NOT NULL UNIQUE,
                    createdAt REAL NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3: identification settings") { db in
            try db.execute(sql: """
                CREATE TABLE identificationSettings (
                    userID TEXT PRIMARY KEY,
                    message BLOB NOT NULL
                );
                """)
        }
        migrator.registerMigration("v4: households") { db in
            try db.execute(sql: """
                CREATE TABLE share (
                    ownerID TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    memberID TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    readWrite INTEGER NOT NULL,
                    createdAt REAL NOT NULL,
                    PRIMARY KEY (ownerID, memberID)
                );
                CREATE INDEX shareByMember ON share (memberID);
                """)
        }
        migrator.registerMigration("v5: indexes for queues and tokens, a revocation counter") { db in
            // The revocation counter replaces counting revoked tokens (a scan of every user's tokens, four times a
            // second); the indexes serve the sweeper's oldest-first queues and `users list`'s token counts.
            try db.execute(sql: """
                CREATE INDEX tokenByUser ON token (userID);
                CREATE INDEX pendingDeletionBySince ON pendingDeletion (since);
                CREATE INDEX pendingCareBySince ON pendingCare (since);
                CREATE TABLE tokenRevocations (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    count INTEGER NOT NULL
                );
                INSERT INTO tokenRevocations SELECT 1, COUNT(*) FROM token WHERE revokedAt IS NOT NULL;
                """)
        }
        migrator.registerMigration("v6: pending care lookups in a total order") { db in
            // The sweeper pages through every pending lookup (by time, user and plant), not only the oldest hundred:
            // saves a collection outage interrupted wait a minute for their plant, and must not hold up the rest.
            try db.execute(sql: """
                CREATE INDEX pendingCareByAge ON pendingCare (since, userID, plantID);
                DROP INDEX pendingCareBySince;
                """)
        }
        migrator.registerMigration("v7: passwords and sign-in back-off") { db in
            try db.execute(sql: """
                CREATE TABLE password (
                    userID TEXT PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                    hash TEXT NOT NULL,
                    updatedAt REAL NOT NULL
                );
                CREATE TABLE signInFailure (
                    key TEXT PRIMARY KEY,
                    failures INTEGER NOT NULL,
                    blockedUntil REAL NOT NULL,
                    lastFailure REAL NOT NULL
                );
                """)
        }
        migrator.registerMigration("v8: sessions that expire") { db in
            // Tokens made by signing in expire (absolutely, and after idle time); an operator's tokens keep NULLs.
            try db.execute(sql: """
                ALTER TABLE token ADD COLUMN expiresAt REAL;
                ALTER TABLE token ADD COLUMN idleTimeout REAL;
                ALTER TABLE token ADD COLUMN lastUsedAt REAL;
                """)
        }
        migrator.registerMigration("v9: invitations") { db in
            try db.execute(sql: """
                CREATE TABLE invitation (
                    id TEXT PRIMARY KEY,
                    hash BLOB NOT NULL UNIQUE,
                    createdAt REAL NOT NULL,
                    expiresAt REAL NOT NULL,
                    usedBy TEXT REFERENCES user(id) ON DELETE SET NULL,
                    usedAt REAL
                );
                """)
        }
        migrator.registerMigration("v10: passkeys") { db in
            try db.execute(sql: """
                CREATE TABLE passkey (
                    id TEXT PRIMARY KEY,
                    userID TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    publicKey BLOB NOT NULL,
                    signCount INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    lastUsedAt REAL
                );
                CREATE INDEX passkeyByUser ON passkey(userID);
                CREATE TABLE passkeyChallenge (
                    hash BLOB PRIMARY KEY,
                    purpose TEXT NOT NULL,
                    userID TEXT,
                    expiresAt REAL NOT NULL
                );
                """)
        }
        return migrator
    }
}
