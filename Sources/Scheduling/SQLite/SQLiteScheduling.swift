import Foundation
import GRDB
import Logging
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPCCore
import PlantGuideStorage
import SwiftProtobuf

/// Scheduling in one SQLite file (``SchedulingDatabase``): the default for one instance.
public struct SQLiteScheduling: SchedulingRecords {
    let writer: TracedDatabase

    public init(writer: any DatabaseWriter) {
        self.writer = TracedDatabase(writer)
    }

    /// Opens (creating and migrating) `<folder>/scheduling.sqlite` and reports stored values today's limits refuse.
    public static func open(folder: URL, logger: Logger) throws -> SQLiteScheduling {
        let database = try SchedulingDatabase.open(path: folder.appendingPathComponent("scheduling.sqlite").path)
        let audit = try database.read(auditStoredValues)
        if audit.schedules + audit.tasks > 0 {
            logger.warning("stored values outside today's limits (written by older versions); schedules plan clamped, times read clamped",
                           metadata: ["schedules": "\(audit.schedules)", "tasks": "\(audit.tasks)"])
        }
        return SQLiteScheduling(writer: database)
    }

    // MARK: Preferences and schedules

    public func preferences(owner: String) async throws -> Preferences {
        try await writer.read { db in try Self.preferences(db, owner: owner) }
    }

    public func updatePreferences(owner: String, at time: Date, _ merge: @escaping @Sendable (Preferences) throws -> Preferences) async throws
        -> (Preferences, Int) {
        try await writer.write { db in
            let stored = try Self.preferences(db, owner: owner)
            let preferences = try merge(stored)
            if preferences.notifyTime != stored.notifyTime || preferences.timeZone != stored.timeZone
                || preferences.remindDaysBefore != stored.remindDaysBefore {
                try Self.retimeReminders(db, owner: owner, preferences: try SchedulePreferences(wire: preferences))
            }
            try db.execute(sql: "INSERT OR REPLACE INTO preferences VALUES (?, ?)", arguments: [owner, try preferences.serializedData()])
            let schedules = try Data.fetchAll(db, sql: "SELECT message FROM schedule WHERE ownerID = ?", arguments: [owner])
            for message in schedules {
                try Self.plan(db, try Schedule(serializedBytes: message), owner: owner, at: time, preferences: preferences)
            }
            return (preferences, schedules.count)
        }
    }

    public func putSchedule(_ schedule: Schedule, owner: String, at time: Date) async throws -> [CareTask] {
        try await writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO schedule VALUES (?, ?, ?)", arguments: [owner, schedule.plantID, try schedule.serializedData()])
            try Self.plan(db, schedule, owner: owner, at: time)
            return try TaskRows.fetch(db, "ownerID = ? AND plantID = ? AND state IN (1, 3) ORDER BY dueDay, kind", [owner, schedule.plantID],
                                      from: TaskRows.ofPlant)
        }
    }

    public func encodedSchedule(plantID: String, owner: String, includeOpenTasks: Bool) async throws -> (schedule: Data, openTasks: [CareTask])? {
        try await writer.read { db in
            guard let message = try Data.fetchOne(db.cachedStatement(sql: "SELECT message FROM schedule WHERE ownerID = ? AND plantID = ?"),
                                                  arguments: [owner, plantID]) else {
                return nil
            }
            let tasks = includeOpenTasks
                ? try TaskRows.fetch(db, "ownerID = ? AND plantID = ? AND state IN (1, 3) ORDER BY dueDay, kind LIMIT 200", [owner, plantID],
                                     from: TaskRows.ofPlant)
                : []
            return (message, tasks)
        }
    }

    public func deleteSchedules(plantID: String, owner: String) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: """
                DELETE FROM reminder WHERE ownerID = ? AND taskID IN (SELECT id FROM task WHERE ownerID = ? AND plantID = ?)
                """, arguments: [owner, owner, plantID])
            try db.execute(sql: "DELETE FROM schedule WHERE ownerID = ? AND plantID = ?", arguments: [owner, plantID])
            try db.execute(sql: "DELETE FROM task WHERE ownerID = ? AND plantID = ?", arguments: [owner, plantID])
            return db.changesCount
        }
    }

    public func extendHorizons(at time: Date) async throws -> Int {
        let keys = try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT ownerID, plantID FROM schedule").map { ($0["ownerID"] as String, $0["plantID"] as String) }
        }
        for batch in stride(from: 0, to: keys.count, by: 200) {
            try await writer.write { db in
                var preferences: [String: Preferences] = [:]  // read once per owner, not once per plant
                for (owner, plant) in keys[batch..<min(batch + 200, keys.count)] {
                    guard let message = try Data.fetchOne(db, sql: "SELECT message FROM schedule WHERE ownerID = ? AND plantID = ?",
                                                          arguments: [owner, plant]) else { continue }
                    if preferences[owner] == nil { preferences[owner] = try Self.preferences(db, owner: owner) }
                    try Self.plan(db, try Schedule(serializedBytes: message), owner: owner, at: time, preferences: preferences[owner])
                }
            }
        }
        return keys.count
    }

    public func claimHorizonExtension(day: Int, at time: Date) async throws -> Bool { true }

    public func schedules(after: String, limit: Int, owner: String) async throws -> [Schedule] {
        try await writer.read { db in
            try Data.fetchAll(db, sql: "SELECT message FROM schedule WHERE ownerID = ? AND plantID > ? ORDER BY plantID LIMIT ?",
                              arguments: [owner, after, limit])
                .compactMap { try? Schedule(serializedBytes: $0) }
        }
    }

    public func rename(plantID: String, to name: String, owner: String) async throws -> Schedule? {
        try await writer.write { db in
            guard let message = try Data.fetchOne(db, sql: "SELECT message FROM schedule WHERE ownerID = ? AND plantID = ?",
                                                  arguments: [owner, plantID]) else { return nil }
            var schedule = try Schedule(serializedBytes: message)
            schedule.plantName = name
            try db.execute(sql: "UPDATE schedule SET message = ? WHERE ownerID = ? AND plantID = ?",
                           arguments: [try schedule.serializedData(), owner, plantID])
            return schedule
        }
    }

    public func deleteAll(owner: String) async throws -> (schedules: Int, tasks: Int) {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM reminder WHERE ownerID = ?", arguments: [owner])
            try db.execute(sql: "DELETE FROM schedule WHERE ownerID = ?", arguments: [owner])
            let schedules = db.changesCount
            try db.execute(sql: "DELETE FROM task WHERE ownerID = ?", arguments: [owner])
            let tasks = db.changesCount
            try db.execute(sql: "DELETE FROM webhook WHERE ownerID = ?", arguments: [owner])
            try db.execute(sql: "DELETE FROM pushSubscription WHERE ownerID = ?", arguments: [owner])
            try db.execute(sql: "DELETE FROM preferences WHERE ownerID = ?", arguments: [owner])
            return (schedules, tasks)
        }
    }

    public func registerWebhook(id: String, url: String, secret: String, owner: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO webhook VALUES (?, ?, ?, ?)", arguments: [owner, id, url, secret])
        }
    }

    public func deleteWebhook(id: String, owner: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM webhook WHERE ownerID = ? AND id = ?", arguments: [owner, id])
            return db.changesCount > 0
        }
    }

    // MARK: Planning

    /// Plans `schedule` (``SchedulePlanning``): future open recurring tasks are replaced, reminders of open tasks
    /// not delivered yet are cancelled, and the planned tasks inserted.
    /// - Parameter preferences: the owner's preferences when the caller has them (planning many schedules).
    static func plan(_ db: Database, _ schedule: Schedule, owner: String, at time: Date, preferences known: Preferences? = nil) throws {
        let preferences = try known ?? Self.preferences(db, owner: owner)
        let today = try SchedulePlanning.today(preferences, at: time).dayNumber
        var history = SchedulePlanning.History()
        for row in try Row.fetchAll(db, sql: """
            SELECT kind, MAX(completedAt) AS last FROM \(TaskRows.ofPlant) WHERE ownerID = ? AND plantID = ? AND state = 2 GROUP BY kind
            """, arguments: [owner, schedule.plantID]) {
            if let last: Double = row["last"] { history.lastCompleted[row["kind"]] = last }
        }
        for row in try Row.fetchAll(db, sql: """
            SELECT kind, MAX(dueDay) AS last FROM \(TaskRows.ofPlant)
            WHERE ownerID = ? AND plantID = ? AND recurring = 1 AND state IN (1, 3) AND dueDay < ? GROUP BY kind
            """, arguments: [owner, schedule.plantID, today]) {
            history.lastOverdue[row["kind"]] = row["last"]
        }
        try db.execute(sql: """
            DELETE FROM \(TaskRows.ofPlant) WHERE ownerID = ? AND plantID = ? AND recurring = 1 AND state = 1 AND dueDay >= ?
            """, arguments: [owner, schedule.plantID, today])
        // Reminders of tasks that will not remind any more (notifications turned off) are cancelled.
        try db.execute(sql: """
            DELETE FROM reminder WHERE ownerID = ? AND taskID IN (SELECT id FROM task WHERE ownerID = ? AND plantID = ? AND state IN (1, 3))
              AND NOT EXISTS (SELECT 1 FROM delivery WHERE delivery.reminderID = reminder.id AND delivery.state = 1)
            """, arguments: [owner, owner, schedule.plantID])
        for task in try SchedulePlanning.tasks(schedule, preferences: preferences, history: history, at: time) {
            try db.execute(sql: """
                INSERT OR IGNORE INTO task (ownerID, id, plantID, kind, state, dueDay, remindAt, recurring)
                VALUES (?, ?, ?, ?, 1, ?, ?, 1)
                """, arguments: [owner, task.id, schedule.plantID, task.kind, task.dueDay, task.remindAt])
        }
    }

    /// Moves the reminders not yet sent of one-off tasks and of tasks snoozed to a date onto the new notify time,
    /// time zone and days before (recurring tasks are planned again by the caller; a snooze by hours keeps its
    /// instant).
    static func retimeReminders(_ db: Database, owner: String, preferences: SchedulePreferences) throws {
        let rows = try Row.fetchAll(db, sql: """
            SELECT id, dueDay, snoozedUntilDay FROM task WHERE ownerID = ? AND remindedAt IS NULL AND remindAt >= 0
              AND ((recurring = 0 AND state = 1) OR (state = 3 AND snoozedUntilDay IS NOT NULL))
            """, arguments: [owner])
        for row in rows {
            let remind = SchedulePlanning.retimed(dueDay: row["dueDay"], snoozed: row["snoozedUntilDay"] as Int? != nil, preferences: preferences)
            try db.execute(sql: "UPDATE task SET remindAt = ? WHERE ownerID = ? AND id = ?", arguments: [remind, owner, row["id"] as String])
        }
    }

    static func preferences(_ db: Database, owner: String) throws -> Preferences {
        guard let message = try Data.fetchOne(db, sql: "SELECT message FROM preferences WHERE ownerID = ?", arguments: [owner]) else {
            return SchedulingStore.defaultPreferences
        }
        return try Preferences(serializedBytes: message)
    }

    /// Counts, at start-up, the schedules whose care values today's limits refuse and the tasks whose times lie
    /// outside proto3's Timestamp range. Both are planned and read clamped, never refused and never fatal.
    static func auditStoredValues(_ db: Database) throws -> (schedules: Int, tasks: Int) {
        let schedules = try Data.fetchAll(db, sql: "SELECT message FROM schedule").filter { message in
            guard let schedule = try? Schedule(serializedBytes: message) else { return true }
            return (try? SchedulingStore.validateCareLimits(schedule.careInfo)) == nil
        }.count
        let low = Double(WireTimestamp.minimumSeconds)
        let high = Double(WireTimestamp.maximumSeconds) + 1
        let tasks = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM task WHERE NOT (remindAt < 0 OR (remindAt >= \(low) AND remindAt < \(high)))
               OR (completedAt IS NOT NULL AND NOT (completedAt >= \(low) AND completedAt < \(high)))
            """) ?? 0
        return (schedules, tasks)
    }
}
