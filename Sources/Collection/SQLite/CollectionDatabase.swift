import Foundation
import GRDB
import PlantGuideStorage

/// The collection service's SQLite database (WAL, foreign keys on) and its migrations.
///
/// v1 holds the records: plants, photos and their links to plants, identifications and the care journal, all
/// scoped by owner. v2 adds the full-text index over plants (FTS5, diacritic-insensitive, prefix-indexed) and
/// fills it from existing rows, so a database written by v1 gains search when it is opened. v3 rebuilds that index
/// with the owner as its first column (a single token, `o` + hex of the user id), so that a search reads one
/// person's postings instead of everyone's. v4 indexes identifications by plant. v5 makes every indexed word the
/// owner's own (``SearchTokens``): with v3 a search still walked every user's postings of a word as common as
/// "kitchen" to intersect them with its owner's, so it grew with other users' plants.
public enum CollectionDatabase {
    /// Opens (creating and migrating) the database at `path`.
    public static func open(path: String) throws -> DatabasePool {
        try ServiceDatabase.open(path: path, migrator: migrator, prepare: prepare)
    }

    /// What every connection needs before the schema is used: the SQL function the search triggers call.
    public static func prepare(_ db: Database) {
        db.add(function: SearchTokens.ownerWordsFunction)
    }

    /// Every migration, in order. Tests apply a prefix of it to build older schemas.
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: records") { db in
            try db.execute(sql: """
                CREATE TABLE plant (
                    rowid INTEGER PRIMARY KEY,
                    ownerID TEXT NOT NULL,
                    id TEXT NOT NULL,
                    scientificName TEXT NOT NULL,
                    commonNames TEXT NOT NULL DEFAULT '[]',
                    family TEXT NOT NULL DEFAULT '',
                    genus TEXT NOT NULL DEFAULT '',
                    customName TEXT NOT NULL DEFAULT '',
                    displayName TEXT NOT NULL,
                    notes TEXT NOT NULL DEFAULT '',
                    location TEXT NOT NULL DEFAULT '',
                    favorite INTEGER NOT NULL DEFAULT 0,
                    identificationSource INTEGER NOT NULL DEFAULT 0,
                    identificationConfidence REAL NOT NULL DEFAULT 0,
                    identifiedAt REAL,
                    addedAt REAL NOT NULL,
                    updatedAt REAL NOT NULL,
                    UNIQUE (ownerID, id)
                );
                CREATE INDEX plantByAdded ON plant(ownerID, addedAt, id);
                CREATE INDEX plantByIdentified ON plant(ownerID, identifiedAt, id);
                CREATE INDEX plantByName ON plant(ownerID, displayName COLLATE NOCASE, id);
                CREATE INDEX plantByFamily ON plant(ownerID, family COLLATE NOCASE, id);

                CREATE TABLE photo (
                    sha256 TEXT PRIMARY KEY,
                    mediaType TEXT NOT NULL,
                    sizeBytes INTEGER NOT NULL,
                    width INTEGER NOT NULL,
                    height INTEGER NOT NULL,
                    addedAt REAL NOT NULL
                );
                CREATE TABLE plantPhoto (
                    ownerID TEXT NOT NULL,
                    plantID TEXT NOT NULL,
                    sha256 TEXT NOT NULL REFERENCES photo(sha256),
                    kind INTEGER NOT NULL,
                    addedAt REAL NOT NULL,
                    PRIMARY KEY (ownerID, plantID, sha256),
                    FOREIGN KEY (ownerID, plantID) REFERENCES plant(ownerID, id) ON DELETE CASCADE
                );
                CREATE INDEX plantPhotoBySHA ON plantPhoto(sha256);

                CREATE TABLE identification (
                    ownerID TEXT NOT NULL,
                    id TEXT NOT NULL,
                    plantID TEXT,
                    identifiedAt REAL NOT NULL,
                    source INTEGER NOT NULL,
                    confidence REAL NOT NULL,
                    topResults BLOB NOT NULL,
                    latitude REAL,
                    longitude REAL,
                    photoSHA256 TEXT NOT NULL DEFAULT '',
                    PRIMARY KEY (ownerID, id),
                    FOREIGN KEY (ownerID, plantID) REFERENCES plant(ownerID, id) ON DELETE CASCADE
                );
                CREATE INDEX identificationByTime ON identification(ownerID, identifiedAt);

                CREATE TABLE journalEvent (
                    ownerID TEXT NOT NULL,
                    id TEXT NOT NULL,
                    plantID TEXT NOT NULL,
                    kind INTEGER NOT NULL,
                    occurredAt REAL NOT NULL,
                    note TEXT NOT NULL DEFAULT '',
                    PRIMARY KEY (ownerID, id),
                    FOREIGN KEY (ownerID, plantID) REFERENCES plant(ownerID, id) ON DELETE CASCADE
                );
                CREATE INDEX journalByPlant ON journalEvent(ownerID, plantID, occurredAt);
                """)
        }
        migrator.registerMigration("v2: plant search") { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE plantSearch USING fts5(
                    displayName, commonNames, scientificName, family, location, notes,
                    content='plant', content_rowid='rowid',
                    tokenize='unicode61 remove_diacritics 2', prefix='1 2 3'
                );
                CREATE TRIGGER plantSearchInsert AFTER INSERT ON plant BEGIN
                    INSERT INTO plantSearch(rowid, displayName, commonNames, scientificName, family, location, notes)
                    VALUES (new.rowid, new.displayName, new.commonNames, new.scientificName, new.family, new.location, new.notes);
                END;
                CREATE TRIGGER plantSearchDelete AFTER DELETE ON plant BEGIN
                    INSERT INTO plantSearch(plantSearch, rowid, displayName, commonNames, scientificName, family, location, notes)
                    VALUES ('delete', old.rowid, old.displayName, old.commonNames, old.scientificName, old.family, old.location, old.notes);
                END;
                CREATE TRIGGER plantSearchUpdate AFTER UPDATE ON plant BEGIN
                    INSERT INTO plantSearch(plantSearch, rowid, displayName, commonNames, scientificName, family, location, notes)
                    VALUES ('delete', old.rowid, old.displayName, old.commonNames, old.scientificName, old.family, old.location, old.notes);
                    INSERT INTO plantSearch(rowid, displayName, commonNames, scientificName, family, location, notes)
                    VALUES (new.rowid, new.displayName, new.commonNames, new.scientificName, new.family, new.location, new.notes);
                END;
                INSERT INTO plantSearch(plantSearch) VALUES ('rebuild');
                """)
        }
        migrator.registerMigration("v3: owner-scoped plant search") { db in
            let columns = "displayName, commonNames, scientificName, family, location, notes"
            let old = "old.displayName, old.commonNames, old.scientificName, old.family, old.location, old.notes"
            let new = "new.displayName, new.commonNames, new.scientificName, new.family, new.location, new.notes"
            try db.execute(sql: """
                DROP TRIGGER plantSearchInsert;
                DROP TRIGGER plantSearchDelete;
                DROP TRIGGER plantSearchUpdate;
                DROP TABLE plantSearch;
                CREATE VIRTUAL TABLE plantSearch USING fts5(
                    owner, \(columns),
                    content='', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3'
                );
                CREATE TRIGGER plantSearchInsert AFTER INSERT ON plant BEGIN
                    INSERT INTO plantSearch(rowid, owner, \(columns)) VALUES (new.rowid, 'o' || lower(hex(new.ownerID)), \(new));
                END;
                CREATE TRIGGER plantSearchDelete AFTER DELETE ON plant BEGIN
                    INSERT INTO plantSearch(plantSearch, rowid, owner, \(columns))
                    VALUES ('delete', old.rowid, 'o' || lower(hex(old.ownerID)), \(old));
                END;
                CREATE TRIGGER plantSearchUpdate AFTER UPDATE ON plant BEGIN
                    INSERT INTO plantSearch(plantSearch, rowid, owner, \(columns))
                    VALUES ('delete', old.rowid, 'o' || lower(hex(old.ownerID)), \(old));
                    INSERT INTO plantSearch(rowid, owner, \(columns)) VALUES (new.rowid, 'o' || lower(hex(new.ownerID)), \(new));
                END;
                INSERT INTO plantSearch(rowid, owner, \(columns))
                    SELECT rowid, 'o' || lower(hex(ownerID)), \(columns) FROM plant;
                """)
        }
        migrator.registerMigration("v4: identifications by plant") { db in
            // Deleting a plant (its identifications cascade) and one plant's history read that plant's rows, not
            // every identification of its owner.
            try db.execute(sql: "CREATE INDEX identificationByPlant ON identification(ownerID, plantID, identifiedAt)")
        }
        migrator.registerMigration("v5: owner-scoped words") { db in
            let columns = "displayName, commonNames, scientificName, family, location, notes"
            func words(_ row: String) -> String {
                columns.split(separator: ",").map { "plantguide_owner_words(\(row).ownerID, \(row).\($0.trimmingCharacters(in: .whitespaces)))" }
                    .joined(separator: ", ")
            }
            try db.execute(sql: """
                DROP TRIGGER plantSearchInsert;
                DROP TRIGGER plantSearchDelete;
                DROP TRIGGER plantSearchUpdate;
                DROP TABLE plantSearch;
                CREATE VIRTUAL TABLE plantSearch USING fts5(\(columns), content='', tokenize='unicode61 remove_diacritics 2');
                CREATE TRIGGER plantSearchInsert AFTER INSERT ON plant BEGIN
                    INSERT INTO plantSearch(rowid, \(columns)) VALUES (new.rowid, \(words("new")));
                END;
                CREATE TRIGGER plantSearchDelete AFTER DELETE ON plant BEGIN
                    INSERT INTO plantSearch(plantSearch, rowid, \(columns)) VALUES ('delete', old.rowid, \(words("old")));
                END;
                CREATE TRIGGER plantSearchUpdate AFTER UPDATE OF ownerID, \(columns) ON plant BEGIN
                    INSERT INTO plantSearch(plantSearch, rowid, \(columns)) VALUES ('delete', old.rowid, \(words("old")));
                    INSERT INTO plantSearch(rowid, \(columns)) VALUES (new.rowid, \(words("new")));
                END;
                INSERT INTO plantSearch(rowid, \(columns)) SELECT rowid, \(words("plant")) FROM plant;
                """)
        }
        return migrator
    }
}
