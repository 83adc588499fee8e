import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideStorage
import PostgresNIO
import SwiftProtobuf

/// Scheduling in PostgreSQL (``PostgresSchedulingSchema``): several replicas share it.
///
/// Every write transaction about one user first takes that user's transaction-scoped advisory lock, so one user's
/// writes run one after another on any replica, as they do under SQLite's single writer: planning reads a plant's
/// history and replaces its future tasks without another write in between. Different users never wait for each
/// other (but for the rare hash collision).
public struct PostgresScheduling: SchedulingRecords {
    let database: PostgresStorage
    /// Each owner's preferences as last read, to guess their today (``forToday(owner:at:_:)``).
    let seenPreferences = SeenPreferences()

    public init(_ database: PostgresStorage) {
        self.database = database
    }

    /// Every migration of scheduling's schema, in order.
    public static var migrations: [PostgresMigration] { PostgresSchedulingSchema.migrations }

    /// Runs `body` in a transaction holding `owner`'s lock.
    func write<Result: Sendable>(owner: String, _ body: @Sendable @escaping (PostgresSession) async throws -> Result) async throws -> Result {
        try await database.write { session in
            try await session.query("SELECT pg_advisory_xact_lock(hashtextextended(\(owner), 0))")
            return try await body(session)
        }
    }

    // MARK: Preferences and schedules

    public func preferences(owner: String) async throws -> Preferences {
        try await database.read { session in try await Self.preferences(session, owner: owner) }
    }

    public func updatePreferences(owner: String, at time: Date, _ merge: @escaping @Sendable (Preferences) throws -> Preferences) async throws
        -> (Preferences, Int) {
        try await write(owner: owner) { session in
            let stored = try await Self.preferences(session, owner: owner)
            let preferences = try merge(stored)
            if preferences.notifyTime != stored.notifyTime || preferences.timeZone != stored.timeZone
                || preferences.remindDaysBefore != stored.remindDaysBefore {
                try await Self.retimeReminders(session, owner: owner, preferences: try SchedulePreferences(wire: preferences))
            }
            try await session.query("""
                INSERT INTO preferences (owner_id, message) VALUES (\(owner), \(try preferences.serializedBytes() as Data))
                ON CONFLICT (owner_id) DO UPDATE SET message = excluded.message
                """)
            let schedules = try await Self.schedules(session, owner: owner)
            for schedule in schedules {
                try await Self.plan(session, schedule, owner: owner, at: time, preferences: preferences)
            }
            return (preferences, schedules.count)
        }
    }


    public func encodedSchedule(plantID: String, owner: String, includeOpenTasks: Bool) async throws -> (schedule: Data, openTasks: [CareTask])? {
        try await database.read { session in
            guard let schedule = try await Self.message(session, plantID: plantID, owner: owner) else { return nil }
            let tasks = includeOpenTasks ? try await Self.openTasks(session, plantID: plantID, owner: owner, limit: 200) : []
            return (schedule, tasks)
        }
    }

    public func deleteSchedules(plantID: String, owner: String) async throws -> Int {
        try await write(owner: owner) { session in
            try await session.query("""
                DELETE FROM reminder WHERE owner_id = \(owner)
                    AND task_id IN (SELECT id FROM task WHERE owner_id = \(owner) AND plant_id = \(plantID))
                """)
            try await session.query("DELETE FROM schedule WHERE owner_id = \(owner) AND plant_id = \(plantID)")
            return try await session.count("DELETE FROM task WHERE owner_id = \(owner) AND plant_id = \(plantID) RETURNING 1")
        }
    }

    /// Each owner's schedules in transactions of at most 50, so that the owner's other writes wait for one of them
    /// at most, never for all of their plants.
    public func extendHorizons(at time: Date) async throws -> Int {
        let keys = try await database.read { session in
            try await session.all("SELECT owner_id, plant_id FROM schedule ORDER BY owner_id, plant_id", as: (String, String).self)
        }
        for (owner, plants) in Dictionary(grouping: keys, by: \.0) {
            for start in stride(from: 0, to: plants.count, by: 50) {
                try await write(owner: owner) { session in
                    let preferences = try await Self.preferences(session, owner: owner)
                    for (_, plant) in plants[start..<min(start + 50, plants.count)] {
                        guard let schedule = try await Self.schedule(session, plantID: plant, owner: owner) else { continue }
                        try await Self.plan(session, schedule, owner: owner, at: time, preferences: preferences)
                    }
                }
            }
        }
        return keys.count
    }

    public func claimHorizonExtension(day: Int, at time: Date) async throws -> Bool {
        try await database.read { session in
            try await session.count("""
                INSERT INTO horizon_day (day, claimed_at) VALUES (\(day), \(time.timeIntervalSince1970)) ON CONFLICT (day) DO NOTHING RETURNING 1
                """) > 0
        }
    }

    public func schedules(after: String, limit: Int, owner: String) async throws -> [Schedule] {
        try await database.read { session in
            let messages: [Data] = try await session.all("""
                SELECT message FROM schedule WHERE owner_id = \(owner) AND plant_id > \(after) ORDER BY plant_id LIMIT \(limit)
                """, as: Data.self)
            return messages.compactMap { try? Schedule(serializedBytes: $0) }
        }
    }

    public func rename(plantID: String, to name: String, owner: String) async throws -> Schedule? {
        try await write(owner: owner) { session in
            guard var schedule = try await Self.schedule(session, plantID: plantID, owner: owner) else { return nil }
            schedule.plantName = name
            try await session.query("""
                UPDATE schedule SET message = \(try schedule.serializedBytes() as Data) WHERE owner_id = \(owner) AND plant_id = \(plantID)
                """)
            return schedule
        }
    }

    public func deleteAll(owner: String) async throws -> (schedules: Int, tasks: Int) {
        try await write(owner: owner) { session in
            try await session.query("DELETE FROM reminder WHERE owner_id = \(owner)")
            let schedules = try await session.count("DELETE FROM schedule WHERE owner_id = \(owner) RETURNING 1")
            let tasks = try await session.count("DELETE FROM task WHERE owner_id = \(owner) RETURNING 1")
            try await session.query("DELETE FROM webhook WHERE owner_id = \(owner)")
            try await session.query("DELETE FROM push_subscription WHERE owner_id = \(owner)")
            try await session.query("DELETE FROM preferences WHERE owner_id = \(owner)")
            return (schedules, tasks)
        }
    }

    public func registerWebhook(id: String, url: String, secret: String, owner: String) async throws {
        try await write(owner: owner) { session in
            try await session.query("""
                INSERT INTO webhook (owner_id, id, url, secret) VALUES (\(owner), \(id), \(url), \(secret))
                ON CONFLICT (owner_id, id) DO UPDATE SET url = excluded.url, secret = excluded.secret
                """)
        }
    }

    public func deleteWebhook(id: String, owner: String) async throws -> Bool {
        try await write(owner: owner) { session in
            try await session.count("DELETE FROM webhook WHERE owner_id = \(owner) AND id = \(id) RETURNING 1") > 0
        }
    }

    /// Moves the reminders not yet sent of one-off tasks and of tasks snoozed to a date (see ``SQLiteScheduling``).
    static func retimeReminders(_ session: PostgresSession, owner: String, preferences: SchedulePreferences) async throws {
        let rows = try await session.all("""
            SELECT id, due_day, snoozed_until_day IS NOT NULL FROM task WHERE owner_id = \(owner) AND reminded_at IS NULL AND remind_at >= 0
                AND ((NOT recurring AND state = 1) OR (state = 3 AND snoozed_until_day IS NOT NULL))
            """, as: (String, Int, Bool).self)
        for (id, dueDay, snoozed) in rows {
            let remind = SchedulePlanning.retimed(dueDay: dueDay, snoozed: snoozed, preferences: preferences)
            try await session.query("UPDATE task SET remind_at = \(remind) WHERE owner_id = \(owner) AND id = \(id)")
        }
    }

    static func preferences(_ session: PostgresSession, owner: String) async throws -> Preferences {
        guard let message = try await session.all("SELECT message FROM preferences WHERE owner_id = \(owner)", as: Data.self).first else {
            return SchedulingStore.defaultPreferences
        }
        return try Preferences(serializedBytes: message)
    }

    static func schedule(_ session: PostgresSession, plantID: String, owner: String) async throws -> Schedule? {
        try await message(session, plantID: plantID, owner: owner).map { try Schedule(serializedBytes: $0) }
    }

    /// The plant's schedule as stored: its message's encoding.
    static func message(_ session: PostgresSession, plantID: String, owner: String) async throws -> Data? {
        try await session.all("SELECT message FROM schedule WHERE owner_id = \(owner) AND plant_id = \(plantID)", as: Data.self).first
    }

    static func schedules(_ session: PostgresSession, owner: String) async throws -> [Schedule] {
        let messages: [Data] = try await session.all("SELECT message FROM schedule WHERE owner_id = \(owner)", as: Data.self)
        return try messages.map { try Schedule(serializedBytes: $0) }
    }

    /// The plant's open tasks by due date (and kind), at most `limit`.
    static func openTasks(_ session: PostgresSession, plantID: String, owner: String, limit: Int?) async throws -> [CareTask] {
        try await PostgresTaskRows.tasks(session.query("""
            SELECT \(unescaped: PostgresTaskRows.columns) FROM task WHERE owner_id = \(owner) AND plant_id = \(plantID) AND state IN (1, 3)
            ORDER BY due_day, kind LIMIT \(limit)
            """))
    }

    /// One task of the owner's, or nil.
    static func task(_ session: PostgresSession, id: String, owner: String) async throws -> CareTask? {
        try await PostgresTaskRows.tasks(session.query("""
            SELECT \(unescaped: PostgresTaskRows.columns) FROM task WHERE owner_id = \(owner) AND id = \(id)
            """)).first
    }
}
