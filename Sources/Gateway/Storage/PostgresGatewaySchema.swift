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
        // Which gateway replica works on which pending entry, until when (a lease), so that two replicas never
        // finish the same one, and an erase of a person's data keeps every replica off their entries. Kinds: 'care'
        // and 'deletion' (a plant's), 'erase' (a person's, plant ''). Claims of one user are made one at a time
        // (their advisory lock), so a claim and an erase never cross.
        PostgresMigration(2, "claims on pending work", [
            """
            CREATE TABLE pending_claim (
                user_id text COLLATE "C" NOT NULL,
                kind text COLLATE "C" NOT NULL,
                plant_id text COLLATE "C" NOT NULL,
                claimer text NOT NULL,
                until double precision NOT NULL,
                PRIMARY KEY (user_id, kind, plant_id)
            )
            """,
            """
            CREATE FUNCTION claim_pending(p_user text, p_kind text, p_plant text, p_claimer text, p_until double precision,
                                          p_now double precision) RETURNS boolean LANGUAGE plpgsql AS $$
            DECLARE
                claimed boolean;
            BEGIN
                PERFORM pg_advisory_xact_lock(hashtextextended('pending:' || p_user, 0));
                IF p_kind <> 'erase' AND EXISTS (SELECT 1 FROM pending_claim WHERE user_id = p_user AND kind = 'erase'
                                                 AND plant_id = '' AND claimer <> p_claimer AND until > p_now) THEN
                    RETURN false;
                END IF;
                INSERT INTO pending_claim (user_id, kind, plant_id, claimer, until) VALUES (p_user, p_kind, p_plant, p_claimer, p_until)
                ON CONFLICT (user_id, kind, plant_id) DO UPDATE SET claimer = excluded.claimer, until = excluded.until
                    WHERE pending_claim.until <= p_now OR pending_claim.claimer = excluded.claimer
                RETURNING true INTO claimed;
                RETURN coalesce(claimed, false);
            END
            $$
            """,
        ]),
        // Each token's rate-limit bucket, shared by the replicas (CallerRateLimiter): the tokens left when it was
        // last updated (negative: owed). Rows untouched for minutes are dropped (full again long since).
        PostgresMigration(3, "rate-limit buckets shared by the replicas", [
            """
            CREATE TABLE rate_bucket (
                token_id text COLLATE "C" PRIMARY KEY,
                tokens double precision NOT NULL,
                updated_at double precision NOT NULL
            )
            """,
        ]),
        // Passwords of people who signed up themselves, and failed sign-ins per name (and client address), shared
        // by the replicas so that back-off holds whichever replica a guess reaches.
        PostgresMigration(4, "passwords and sign-in back-off", [
            """
            CREATE TABLE password (
                user_id text COLLATE "C" PRIMARY KEY REFERENCES app_user (id) ON DELETE CASCADE,
                hash text NOT NULL,
                updated_at double precision NOT NULL
            )
            """,
            """
            CREATE TABLE sign_in_failure (
                key text COLLATE "C" PRIMARY KEY,
                failures integer NOT NULL,
                blocked_until double precision NOT NULL,
                last_failure double precision NOT NULL
            )
            """,
        ]),
        // Tokens made by signing in expire (absolutely, and after idle time); an operator's tokens keep NULLs.
        PostgresMigration(5, "sessions that expire", [
            "ALTER TABLE token ADD COLUMN expires_at double precision, ADD COLUMN idle_timeout double precision, "
                + "ADD COLUMN last_used_at double precision",
        ]),
        // Invitations to sign up (`--signup invite`): a directory like users and tokens.
        PostgresMigration(6, "invitations", [
            """
            CREATE TABLE invitation (
                id text COLLATE "C" PRIMARY KEY,
                hash bytea NOT NULL UNIQUE,
                created_at double precision NOT NULL,
                expires_at double precision NOT NULL,
                used_by text COLLATE "C" REFERENCES app_user (id) ON DELETE SET NULL,
                used_at double precision
            )
            """,
        ]),
        // Passkeys, and the challenges of ceremonies under way (any replica may finish what another began).
        PostgresMigration(7, "passkeys", [
            """
            CREATE TABLE passkey (
                id text COLLATE "C" PRIMARY KEY,
                user_id text COLLATE "C" NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
                public_key bytea NOT NULL,
                sign_count bigint NOT NULL,
                name text NOT NULL,
                created_at double precision NOT NULL,
                last_used_at double precision
            )
            """,
            "CREATE INDEX passkey_by_user ON passkey (user_id)",
            """
            CREATE TABLE passkey_challenge (
                hash bytea PRIMARY KEY,
                purpose text NOT NULL,
                user_id text COLLATE "C",
                expires_at double precision NOT NULL
            )
            """,
        ]),
    ]
}
