import PlantGuideStorage

/// Scheduling's tables in PostgreSQL, in the service's schema. Every key starts with the owner's id (so on Citus
/// they distribute by `owner_id`, see Deploy/README.md); texts compare byte-wise (`COLLATE "C"`) as in SQLite.
/// Triggers give a user a new random calendar version with every change of their tasks, schedules and
/// preferences, as SQLite's do.
enum PostgresSchedulingSchema {
    static let migrations = [
        PostgresMigration(1, "schedules, tasks, reminders", [
            """
            CREATE TABLE preferences (
                owner_id text COLLATE "C" PRIMARY KEY,
                message bytea NOT NULL
            )
            """,
            """
            CREATE TABLE schedule (
                owner_id text COLLATE "C" NOT NULL,
                plant_id text COLLATE "C" NOT NULL,
                message bytea NOT NULL,
                PRIMARY KEY (owner_id, plant_id)
            )
            """,
            """
            CREATE TABLE task (
                owner_id text COLLATE "C" NOT NULL,
                id text COLLATE "C" NOT NULL,
                plant_id text COLLATE "C" NOT NULL,
                kind integer NOT NULL,
                state integer NOT NULL,
                due_day integer NOT NULL,
                remind_at double precision NOT NULL,
                completed_at double precision,
                snoozed_until_day integer,
                recurring boolean NOT NULL,
                note text NOT NULL DEFAULT '',
                reminded_at double precision,
                PRIMARY KEY (owner_id, id)
            )
            """,
            "CREATE INDEX task_by_day ON task (owner_id, due_day)",
            "CREATE INDEX task_by_plant ON task (owner_id, plant_id, state, due_day)",
            "CREATE INDEX task_due_reminders ON task (remind_at) WHERE reminded_at IS NULL AND remind_at >= 0 AND state IN (1, 3)",
            """
            CREATE TABLE webhook (
                owner_id text COLLATE "C" NOT NULL,
                id text COLLATE "C" NOT NULL,
                url text NOT NULL,
                secret text NOT NULL,
                PRIMARY KEY (owner_id, id)
            )
            """,
            """
            CREATE TABLE reminder (
                owner_id text COLLATE "C" NOT NULL,
                id text COLLATE "C" NOT NULL,
                task_id text COLLATE "C" NOT NULL,
                message bytea NOT NULL,
                created_at double precision NOT NULL,
                PRIMARY KEY (owner_id, id)
            )
            """,
            "CREATE INDEX reminder_by_task ON reminder (owner_id, task_id)",
            """
            CREATE TABLE delivery (
                owner_id text COLLATE "C" NOT NULL,
                reminder_id text COLLATE "C" NOT NULL,
                receiver text COLLATE "C" NOT NULL,
                state integer NOT NULL DEFAULT 0,
                attempts integer NOT NULL DEFAULT 0,
                next_attempt_at double precision NOT NULL,
                last_error text NOT NULL DEFAULT '',
                PRIMARY KEY (owner_id, reminder_id, receiver),
                FOREIGN KEY (owner_id, reminder_id) REFERENCES reminder (owner_id, id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX delivery_due ON delivery (next_attempt_at) WHERE state = 0",
            """
            CREATE TABLE calendar_version (
                owner_id text COLLATE "C" PRIMARY KEY,
                version bigint NOT NULL
            )
            """,
            """
            CREATE FUNCTION bump_calendar_version() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO calendar_version (owner_id, version)
                VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.owner_id ELSE NEW.owner_id END,
                        floor((random() - 0.5) * 1.8e19)::bigint)
                ON CONFLICT (owner_id) DO UPDATE SET version = excluded.version;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER calendar_task AFTER INSERT OR DELETE OR UPDATE OF plant_id, kind, state, due_day, remind_at, note ON task
            FOR EACH ROW EXECUTE FUNCTION bump_calendar_version()
            """,
            "CREATE TRIGGER calendar_schedule AFTER INSERT OR DELETE OR UPDATE ON schedule FOR EACH ROW EXECUTE FUNCTION bump_calendar_version()",
            "CREATE TRIGGER calendar_preferences AFTER INSERT OR DELETE OR UPDATE ON preferences FOR EACH ROW EXECUTE FUNCTION bump_calendar_version()",
        ]),
    ]
}
