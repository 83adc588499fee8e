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
        PostgresMigration(2, "planning in one statement", [
            // What planning reads about a plant (SchedulePlanning.History): per kind, the last completion and the
            // latest overdue open recurring task.
            """
            CREATE FUNCTION plan_history(p_owner text, p_plant text, p_today integer)
            RETURNS TABLE (kind integer, completed double precision, overdue integer) LANGUAGE sql STABLE AS $$
                SELECT kind, max(completed_at) FILTER (WHERE state = 2),
                       max(due_day) FILTER (WHERE recurring AND state IN (1, 3) AND due_day < p_today)
                FROM task WHERE owner_id = p_owner AND plant_id = p_plant
                    AND (state = 2 OR (recurring AND state IN (1, 3) AND due_day < p_today))
                GROUP BY kind
            $$
            """,
            // A plant's plan written in one statement, under the owner's lock: the schedule (when given) stored,
            // future open recurring tasks replaced by the planned ones, reminders of open tasks not being
            // delivered cancelled; returns the plant's open tasks. With p_checked, it first checks that the
            // preferences and history the plan was made from are still current (planning outside a transaction
            // reads them without the lock) and fails with serialization_failure when they are not.
            """
            CREATE FUNCTION replan(p_owner text, p_plant text, p_today integer, p_schedule bytea, p_checked boolean,
                                   p_preferences bytea, p_kinds integer[], p_completed double precision[], p_overdue double precision[],
                                   p_ids text[], p_task_kinds integer[], p_days integer[], p_reminds double precision[])
            RETURNS SETOF task LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_advisory_xact_lock(hashtextextended(p_owner, 0));
                IF p_checked AND (
                    (SELECT message FROM preferences WHERE owner_id = p_owner) IS DISTINCT FROM p_preferences
                    OR (SELECT ROW(coalesce(array_agg(h.kind ORDER BY h.kind), '{}'),
                                   coalesce(array_agg(coalesce(h.completed, 'NaN') ORDER BY h.kind), '{}'),
                                   coalesce(array_agg(coalesce(h.overdue::double precision, 'NaN') ORDER BY h.kind), '{}'))
                        FROM plan_history(p_owner, p_plant, p_today) AS h WHERE h.completed IS NOT NULL OR h.overdue IS NOT NULL)
                       IS DISTINCT FROM ROW(p_kinds, p_completed, p_overdue)) THEN
                    RAISE EXCEPTION 'the plan was made from a read that is no longer current' USING ERRCODE = 'serialization_failure';
                END IF;
                IF p_schedule IS NOT NULL THEN
                    INSERT INTO schedule (owner_id, plant_id, message) VALUES (p_owner, p_plant, p_schedule)
                    ON CONFLICT (owner_id, plant_id) DO UPDATE SET message = excluded.message;
                END IF;
                DELETE FROM task WHERE owner_id = p_owner AND plant_id = p_plant AND recurring AND state = 1 AND due_day >= p_today;
                DELETE FROM reminder WHERE owner_id = p_owner
                    AND task_id IN (SELECT id FROM task WHERE owner_id = p_owner AND plant_id = p_plant AND state IN (1, 3))
                    AND NOT EXISTS (SELECT 1 FROM delivery WHERE delivery.owner_id = reminder.owner_id
                                    AND delivery.reminder_id = reminder.id AND delivery.state = 1);
                INSERT INTO task (owner_id, id, plant_id, kind, state, due_day, remind_at, recurring)
                SELECT p_owner, planned.id, p_plant, planned.kind, 1, planned.due_day, planned.remind_at, true
                FROM unnest(p_ids, p_task_kinds, p_days, p_reminds) AS planned (id, kind, due_day, remind_at)
                ON CONFLICT (owner_id, id) DO NOTHING;
                RETURN QUERY SELECT * FROM task WHERE owner_id = p_owner AND plant_id = p_plant AND state IN (1, 3) ORDER BY due_day, kind;
            END
            $$
            """,
        ]),
        // A new calendar version once per statement and owner, not once per row: planning a plant inserts and
        // deletes a dozen tasks at a time. (Transition tables need one trigger per event; updates stay per row,
        // as a trigger on some columns cannot have them.)
        PostgresMigration(3, "calendar versions per statement", [
            """
            CREATE FUNCTION bump_calendar_versions() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO calendar_version (owner_id, version)
                SELECT owner_id, floor((random() - 0.5) * 1.8e19)::bigint FROM (SELECT DISTINCT owner_id FROM changed) AS owners
                ON CONFLICT (owner_id) DO UPDATE SET version = excluded.version;
                RETURN NULL;
            END
            $$
            """,
            "DROP TRIGGER calendar_task ON task",
            """
            CREATE TRIGGER calendar_task_insert AFTER INSERT ON task REFERENCING NEW TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION bump_calendar_versions()
            """,
            """
            CREATE TRIGGER calendar_task_delete AFTER DELETE ON task REFERENCING OLD TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION bump_calendar_versions()
            """,
            """
            CREATE TRIGGER calendar_task_update AFTER UPDATE OF plant_id, kind, state, due_day, remind_at, note ON task
            FOR EACH ROW EXECUTE FUNCTION bump_calendar_version()
            """,
        ]),
        // ListTasks orders by day, plant and kind: an index in that order ends the scan at the page's last task
        // (by day alone, it read every task of the view and sorted them).
        PostgresMigration(4, "tasks by day in ListTasks' order", [
            "CREATE INDEX task_by_day_plant_kind ON task (owner_id, due_day, plant_id, kind)",
            "DROP INDEX task_by_day",
        ]),
        // Which UTC days' horizon extension a replica took on, so that it runs once a day, not at every replica's
        // start and by every replica.
        PostgresMigration(5, "one horizon extension a day", [
            "CREATE TABLE horizon_day (day integer PRIMARY KEY, claimed_at double precision NOT NULL)",
        ]),
        PostgresMigration(6, "push subscriptions", [
            """
            CREATE TABLE push_subscription (
                owner_id text COLLATE "C" NOT NULL,
                id text COLLATE "C" NOT NULL,
                endpoint text NOT NULL,
                p256dh bytea NOT NULL,
                auth bytea NOT NULL,
                created_at double precision NOT NULL,
                PRIMARY KEY (owner_id, id)
            )
            """,
        ]),
        PostgresMigration(7, "the language of a push subscription's notifications", [
            "ALTER TABLE push_subscription ADD COLUMN language text NOT NULL DEFAULT ''",
        ]),
    ]
}
