import PlantGuideStorage

/// The gateway's tables in PostgreSQL, in the service's schema. `app_user` and `token` are the directory of
/// everyone (a token is found by its hash, a share names a user by name): on Citus they are reference tables.
/// The rest is keyed by user first and distributes by it (see Deploy/README.md). Texts compare byte-wise.
enum PostgresGatewaySchema {
    static let migrations = [
        PostgresMigration(1, "accounts, shares, settings, pending work", [
            """
            CREATE TABLE app_user (
                id text COLLATE "C" PRIMARY KEY,
                name text COLLATE "C" NOT NULL UNIQUE,
                created_at double precision NOT NULL
            )
            """,
            """
            CREATE TABLE token (
                id text COLLATE "C" PRIMARY KEY,
                user_id text COLLATE "C" NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
                hash bytea NOT NULL UNIQUE,
                created_at double precision NOT NULL,
                revoked_at double precision
            )
            """,
            "CREATE INDEX token_by_user ON token (user_id)",
            "CREATE TABLE token_revocations (id integer PRIMARY KEY CHECK (id = 1), count bigint NOT NULL)",
            "INSERT INTO token_revocations VALUES (1, 0)",
            """
            CREATE TABLE calendar_link (
                user_id text COLLATE "C" PRIMARY KEY,
                hash bytea NOT NULL UNIQUE,
                created_at double precision NOT NULL
            )
            """,
            """
            CREATE TABLE share (
                owner_id text COLLATE "C" NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
                member_id text COLLATE "C" NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
                read_write boolean NOT NULL,
                created_at double precision NOT NULL,
                PRIMARY KEY (owner_id, member_id)
            )
            """,
            "CREATE INDEX share_by_member ON share (member_id)",
            """
            CREATE TABLE identification_settings (
                user_id text COLLATE "C" PRIMARY KEY,
                message bytea NOT NULL
            )
            """,
            """
            CREATE TABLE pending_deletion (
                user_id text COLLATE "C" NOT NULL,
                plant_id text COLLATE "C" NOT NULL,
                since double precision NOT NULL,
                PRIMARY KEY (user_id, plant_id)
            )
            """,
            "CREATE INDEX pending_deletion_by_since ON pending_deletion (since)",
            """
            CREATE TABLE pending_care (
                user_id text COLLATE "C" NOT NULL,
                plant_id text COLLATE "C" NOT NULL,
                scientific_name text NOT NULL,
                plant_name text NOT NULL,
                include_repotting boolean NOT NULL,
                include_pruning boolean NOT NULL,
                since double precision NOT NULL,
                PRIMARY KEY (user_id, plant_id)
            )
            """,
            "CREATE INDEX pending_care_by_age ON pending_care (since, user_id, plant_id)",
        ]),
    ]
}
