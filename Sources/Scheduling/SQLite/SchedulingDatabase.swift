import GRDB
import PlantGuideStorage

/// The scheduling service's SQLite database (WAL) and its migrations.
public enum SchedulingDatabase {
    public static func open(path: String) throws -> DatabasePool {
        try ServiceDatabase.open(path: path, migrator: migrator)
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
        migrator.registerMigration("v2: reminder outbox and webhooks") { db in
            try db.execute(sql: """
                ALTER TABLE task ADD COLUMN remindedAt REAL;
                CREATE INDEX taskDueReminders ON task(remindAt) WHERE remindedAt IS NULL AND remindAt >= 0 AND state IN (1, 3);
                CREATE TABLE webhook (
                    ownerID TEXT NOT NULL,
                    id TEXT NOT NULL,
                    url TEXT NOT NULL,
                    secret TEXT NOT NULL,
                    PRIMARY KEY (ownerID, id)
                );
                CREATE TABLE reminder (
                    id TEXT PRIMARY KEY,
                    ownerID TEXT NOT NULL,
                    taskID TEXT NOT NULL,
                    message BLOB NOT NULL,
                    createdAt REAL NOT NULL
                );
                CREATE TABLE delivery (
                    reminderID TEXT NOT NULL REFERENCES reminder(id) ON DELETE CASCADE,
                    receiver TEXT NOT NULL,
                    state INTEGER NOT NULL DEFAULT 0,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    nextAttemptAt REAL NOT NULL,
                    lastError TEXT NOT NULL DEFAULT '',
                    PRIMARY KEY (reminderID, receiver)
                );
                CREATE INDEX deliveryDue ON delivery(nextAttemptAt) WHERE state = 0;
                """)
        }
        migrator.registerMigration("v3: indexes that keep a call's cost to its own user and plant") { db in
            // A plant's tasks by state and day: planning, a plant's open tasks and its overdue ones read only that
            // plant's rows (the planner took taskByDay, every future task of the user, for some of them). A
            // reminder by its task: a schedule write no longer scans every user's reminders. taskByReminder was
            // superseded by the partial taskDueReminders in v2 and only cost writes.
            try db.execute(sql: """
                DROP INDEX taskByPlant;
                DROP INDEX taskByReminder;
                CREATE INDEX taskByPlant ON task(ownerID, plantID, state, dueDay);
                CREATE INDEX reminderByTask ON reminder(ownerID, taskID);
                """)
        }
        migrator.registerMigration("v4: calendar versions") { db in
            // A user's calendar feed changes only with their tasks, schedules (plant names) and preferences
            // (alarms, time zone): triggers give the user a new random version on every such change, so a feed
            // is rendered once per change and a poll after none is answered from the version alone. Random, not
            // counted, so that a version never comes back after a restore or a deletion.
            let bumpNew = Self.bumpVersion("new")
            let bumpOld = Self.bumpVersion("old")
            try db.execute(sql: """
                CREATE TABLE calendarVersion (
                    ownerID TEXT PRIMARY KEY,
                    version INTEGER NOT NULL
                );
                CREATE TRIGGER calendarTaskInsert AFTER INSERT ON task BEGIN \(bumpNew) END;
                CREATE TRIGGER calendarTaskDelete AFTER DELETE ON task BEGIN \(bumpOld) END;
                CREATE TRIGGER calendarTaskUpdate AFTER UPDATE OF plantID, kind, state, dueDay, remindAt, note ON task BEGIN \(bumpNew) END;
                CREATE TRIGGER calendarScheduleInsert AFTER INSERT ON schedule BEGIN \(bumpNew) END;
                CREATE TRIGGER calendarScheduleDelete AFTER DELETE ON schedule BEGIN \(bumpOld) END;
                CREATE TRIGGER calendarScheduleUpdate AFTER UPDATE ON schedule BEGIN \(bumpNew) END;
                CREATE TRIGGER calendarPreferencesInsert AFTER INSERT ON preferences BEGIN \(bumpNew) END;
                CREATE TRIGGER calendarPreferencesDelete AFTER DELETE ON preferences BEGIN \(bumpOld) END;
                CREATE TRIGGER calendarPreferencesUpdate AFTER UPDATE ON preferences BEGIN \(bumpNew) END;
                """)
        }
        migrator.registerMigration("v5: push subscriptions") { db in
            try db.execute(sql: """
                CREATE TABLE pushSubscription (
                    ownerID TEXT NOT NULL,
                    id TEXT NOT NULL,
                    endpoint TEXT NOT NULL,
                    p256dh BLOB NOT NULL,
                    auth BLOB NOT NULL,
                    createdAt REAL NOT NULL,
                    PRIMARY KEY (ownerID, id)
                );
                """)
        }
        migrator.registerMigration("v6: the language of a push subscription's notifications") { db in
            try db.execute(sql: "ALTER TABLE pushSubscription ADD COLUMN language TEXT NOT NULL DEFAULT ''")
        }
        return migrator
    }

    /// The statement a trigger runs to give the owner of its `row` ("new" or "old") a new calendar version.
    private static func bumpVersion(_ row: String) -> String {
        "INSERT INTO calendarVersion VALUES (\(row).ownerID, random()) ON CONFLICT (ownerID) DO UPDATE SET version = excluded.version;"
    }
}
