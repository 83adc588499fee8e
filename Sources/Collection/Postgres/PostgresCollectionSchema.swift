import PlantGuideStorage

/// The collection's tables in PostgreSQL, in the service's schema. Every key starts with the owner's id and every
/// foreign key includes it, so on Citus each table distributes by `owner_id` (see Deploy/README.md). Texts compare
/// byte-wise (`COLLATE "C"`), as SQLite compares them, so sorting and filters answer the same on both backends.
///
/// Photos are per owner (`photo` keyed by owner and content hash), bytes and thumbnails in the row: any replica
/// serves any photo and one backup holds everything. `search` holds the plant's words for full-text search, each
/// marked with its owner (``SearchTokens``) and weighted by field (``PostgresSearchText``).
enum PostgresCollectionSchema {
    static let migrations = [
        PostgresMigration(1, "records", [
            """
            CREATE TABLE plant (
                owner_id text COLLATE "C" NOT NULL,
                id text COLLATE "C" NOT NULL,
                scientific_name text COLLATE "C" NOT NULL,
                common_names text[] NOT NULL DEFAULT '{}',
                family text COLLATE "C" NOT NULL DEFAULT '',
                genus text COLLATE "C" NOT NULL DEFAULT '',
                custom_name text COLLATE "C" NOT NULL DEFAULT '',
                display_name text COLLATE "C" NOT NULL,
                notes text COLLATE "C" NOT NULL DEFAULT '',
                location text COLLATE "C" NOT NULL DEFAULT '',
                favorite boolean NOT NULL DEFAULT false,
                identification_source integer NOT NULL DEFAULT 0,
                identification_confidence double precision NOT NULL DEFAULT 0,
                identified_at double precision,
                added_at double precision NOT NULL,
                updated_at double precision NOT NULL,
                search tsvector NOT NULL,
                PRIMARY KEY (owner_id, id)
            )
            """,
            "CREATE INDEX plant_by_added ON plant (owner_id, added_at, id)",
            "CREATE INDEX plant_by_identified ON plant (owner_id, (COALESCE(identified_at, 0)), id)",
            "CREATE INDEX plant_by_name ON plant (owner_id, lower(display_name), id)",
            "CREATE INDEX plant_by_family ON plant (owner_id, lower(family), id)",
            "CREATE INDEX plant_search ON plant USING gin (search)",
            """
            CREATE TABLE photo (
                owner_id text COLLATE "C" NOT NULL,
                sha256 text COLLATE "C" NOT NULL,
                media_type text NOT NULL,
                size_bytes bigint NOT NULL,
                width integer NOT NULL,
                height integer NOT NULL,
                added_at double precision NOT NULL,
                original bytea NOT NULL,
                thumbnail_256 bytea NOT NULL,
                thumbnail_1024 bytea NOT NULL,
                PRIMARY KEY (owner_id, sha256)
            )
            """,
            // Images are compressed already: stored out of line without another compression attempt.
            "ALTER TABLE photo ALTER COLUMN original SET STORAGE EXTERNAL",
            "ALTER TABLE photo ALTER COLUMN thumbnail_256 SET STORAGE EXTERNAL",
            "ALTER TABLE photo ALTER COLUMN thumbnail_1024 SET STORAGE EXTERNAL",
            """
            CREATE TABLE plant_photo (
                owner_id text COLLATE "C" NOT NULL,
                plant_id text COLLATE "C" NOT NULL,
                sha256 text COLLATE "C" NOT NULL,
                kind integer NOT NULL,
                added_at double precision NOT NULL,
                PRIMARY KEY (owner_id, plant_id, sha256),
                FOREIGN KEY (owner_id, plant_id) REFERENCES plant (owner_id, id),
                FOREIGN KEY (owner_id, sha256) REFERENCES photo (owner_id, sha256)
            )
            """,
            "CREATE INDEX plant_photo_by_sha ON plant_photo (owner_id, sha256)",
            """
            CREATE TABLE identification (
                owner_id text COLLATE "C" NOT NULL,
                id text COLLATE "C" NOT NULL,
                plant_id text COLLATE "C",
                identified_at double precision NOT NULL,
                source integer NOT NULL,
                confidence double precision NOT NULL,
                top_results bytea NOT NULL,
                latitude double precision,
                longitude double precision,
                photo_sha256 text COLLATE "C" NOT NULL DEFAULT '',
                PRIMARY KEY (owner_id, id),
                FOREIGN KEY (owner_id, plant_id) REFERENCES plant (owner_id, id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX identification_by_time ON identification (owner_id, identified_at)",
            "CREATE INDEX identification_by_plant ON identification (owner_id, plant_id, identified_at)",
            """
            CREATE TABLE journal_event (
                owner_id text COLLATE "C" NOT NULL,
                id text COLLATE "C" NOT NULL,
                plant_id text COLLATE "C" NOT NULL,
                kind integer NOT NULL,
                occurred_at double precision NOT NULL,
                note text NOT NULL DEFAULT '',
                PRIMARY KEY (owner_id, id),
                FOREIGN KEY (owner_id, plant_id) REFERENCES plant (owner_id, id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX journal_by_plant ON journal_event (owner_id, plant_id, occurred_at)",
        ]),
        // A GIN index with fast updates keeps new entries in a pending list that every search reads through
        // until a vacuum merges it: searches after a burst of adds (an import) were three times slower. Adds
        // update the index directly instead.
        PostgresMigration(2, "search index without a pending list", [
            "ALTER INDEX plant_search SET (fastupdate = off)",
            "SELECT gin_clean_pending_list('plant_search'::regclass)",
        ]),
    ]
}
