import Foundation
import GRDB
import PlantGuideCore
import PlantGuideProtos

/// Task lists, counts and changes in SQLite.
extension SQLiteScheduling {
    public func tasks(_ query: TaskQuery, owner: String, at time: Date) async throws -> [CareTask] {
        try await writer.read { db in
            let today = try SchedulePlanning.today(Self.preferences(db, owner: owner), at: time).dayNumber
            var conditions = ["ownerID = ?"]
            var arguments: [any DatabaseValueConvertible] = [owner]
            switch query.view {
            case .overdue: conditions.append("state IN (1, 3) AND dueDay < \(today)")
            case .today: conditions.append("state IN (1, 3) AND dueDay = \(today)")
            case .due: conditions.append("state IN (1, 3) AND dueDay <= \(today)")
            case .upcoming: conditions.append("state IN (1, 3) AND dueDay > \(today)")
            case .range: conditions.append("dueDay BETWEEN \(query.range?.lowerBound ?? 0) AND \(query.range?.upperBound ?? 0)")
            default: conditions.append("state IN (1, 3)")
            }
            if !query.types.isEmpty {
                conditions.append("kind IN (\(query.types.map { _ in "?" }.joined(separator: ", ")))")
                arguments += query.types
            }
            if !query.plantID.isEmpty {
                conditions.append("plantID = ?")
                arguments.append(query.plantID)
            }
            return try TaskRows.fetch(db, conditions.joined(separator: " AND ") + " ORDER BY dueDay, plantID, kind LIMIT \(query.limit)", arguments,
                                      from: query.plantID.isEmpty ? TaskRows.byDay : TaskRows.ofPlant, cached: false)
        }
    }

    public func badge(owner: String, at time: Date) async throws -> (overdue: Int, today: Int) {
        try await writer.read { db in
            let today = try SchedulePlanning.today(Self.preferences(db, owner: owner), at: time).dayNumber
            let row = try Row.fetchOne(db, sql: """
                SELECT COALESCE(SUM(dueDay < ?), 0), COALESCE(SUM(dueDay = ?), 0) FROM task WHERE ownerID = ? AND state IN (1, 3)
                """, arguments: [today, today, owner])
            return (row?[0] ?? 0, row?[1] ?? 0)
        }
    }

    public func counts(firstDay: Int, lastDay: Int, owner: String) async throws -> [Int: UInt32] {
        try await writer.read { db in
            var counts: [Int: UInt32] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT dueDay, COUNT(*) FROM task WHERE ownerID = ? AND state <> 4 AND dueDay BETWEEN ? AND ? GROUP BY dueDay
                """, arguments: [owner, firstDay, lastDay]) {
                counts[row[0]] = row[1]
            }
            return counts
        }
    }

    public func taskCounts(plantIDs: [String], owner: String, at time: Date) async throws -> [String: Plantguide_Scheduling_V1_PlantTaskCounts] {
        try await writer.read { db in
            let today = try SchedulePlanning.today(Self.preferences(db, owner: owner), at: time).dayNumber
            let rows = try Row.fetchAll(db, sql: """
                SELECT plantID, SUM(dueDay < ?), SUM(dueDay = ?), SUM(dueDay > ?) FROM task
                WHERE ownerID = ? AND state IN (1, 3) GROUP BY plantID
                """, arguments: [today, today, today, owner])
            let scheduled = plantIDs.isEmpty ? try String.fetchAll(db, sql: "SELECT plantID FROM schedule WHERE ownerID = ?", arguments: [owner]) : []
            return SchedulingStore.taskCounts(
                plantIDs: plantIDs, scheduled: scheduled,
                rows: rows.map { (plantID: $0[0], overdue: $0[1], today: $0[2], upcoming: $0[3]) })
        }
    }

    public func complete(ids: [String], when: Double, owner: String, at time: Date) async throws -> (completed: [CareTask], planned: [CareTask]) {
        try await writer.write { db in
            var plants: Set<String> = []
            for id in ids {
                guard let task = try TaskRows.fetch(db, "ownerID = ? AND id = ?", [owner, id]).first else {
                    throw SchedulingError(.notFound, "no task \(id)")
                }
                guard task.state != .completed else { continue }
                try db.execute(sql: "UPDATE task SET state = 2, completedAt = ? WHERE ownerID = ? AND id = ?", arguments: [when, owner, id])
                if task.recurring { plants.insert(task.plantID) }
            }
            let preferences = plants.isEmpty ? nil : try Self.preferences(db, owner: owner)
            for plant in plants {
                if let message = try Data.fetchOne(db, sql: "SELECT message FROM schedule WHERE ownerID = ? AND plantID = ?", arguments: [owner, plant]) {
                    try Self.plan(db, try Schedule(serializedBytes: message), owner: owner, at: time, preferences: preferences)
                }
            }
            let completed = try ids.flatMap { try TaskRows.fetch(db, "ownerID = ? AND id = ?", [owner, $0]) }
            let planned = try plants.sorted().flatMap {
                try TaskRows.fetch(db, "ownerID = ? AND plantID = ? AND state = 1 AND recurring = 1 ORDER BY dueDay, kind", [owner, $0],
                                   from: TaskRows.ofPlant)
            }
            return (completed, planned)
        }
    }

    public func snooze(id: String, owner: String, _ change: @escaping @Sendable (SchedulePreferences) throws -> (day: Int?, remindAt: Double)) async throws
        -> CareTask {
        try await writer.write { db in
            guard let task = try TaskRows.fetch(db, "ownerID = ? AND id = ?", [owner, id]).first else { throw SchedulingError(.notFound, "no task \(id)") }
            try SchedulingStore.requireOpen(task)
            let (day, remind) = try change(try SchedulePreferences(wire: Self.preferences(db, owner: owner)))
            if let day {
                try db.execute(sql: "UPDATE task SET state = 3, dueDay = ?, snoozedUntilDay = ?, remindAt = ?, remindedAt = NULL WHERE ownerID = ? AND id = ?",
                               arguments: [day, day, remind, owner, id])
            } else {
                try db.execute(sql: "UPDATE task SET state = 3, remindAt = ?, remindedAt = NULL WHERE ownerID = ? AND id = ?", arguments: [remind, owner, id])
            }
            return try TaskRows.fetch(db, "ownerID = ? AND id = ?", [owner, id])[0]
        }
    }

    public func skip(id: String, owner: String) async throws -> CareTask {
        try await writer.write { db in
            guard let task = try TaskRows.fetch(db, "ownerID = ? AND id = ?", [owner, id]).first else { throw SchedulingError(.notFound, "no task \(id)") }
            guard task.state != .completed else { throw SchedulingError(.failedPrecondition, "task \(id) is completed") }
            try db.execute(sql: "UPDATE task SET state = 4 WHERE ownerID = ? AND id = ?", arguments: [owner, id])
            return try TaskRows.fetch(db, "ownerID = ? AND id = ?", [owner, id])[0]
        }
    }

    public func reopen(id: String, owner: String, at time: Date) async throws -> CareTask {
        try await writer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM task WHERE ownerID = ? AND id = ?", arguments: [owner, id]) else {
                throw SchedulingError(.notFound, "no task \(id)")
            }
            let state: Int = row["state"]
            guard state == 2 || state == 4 else { return try TaskRows.fetch(db, "ownerID = ? AND id = ?", [owner, id])[0] }
            try db.execute(sql: "UPDATE task SET state = 1, completedAt = NULL WHERE ownerID = ? AND id = ?", arguments: [owner, id])
            let plantID: String = row["plantID"]
            if state == 2, row["recurring"] as Bool,
               let message = try Data.fetchOne(db, sql: "SELECT message FROM schedule WHERE ownerID = ? AND plantID = ?", arguments: [owner, plantID]) {
                // Planning again replaces the open occurrences from today on, this one among them when it is due
                // today or later: it is put back as it was, if planning did not make it again.
                try Self.plan(db, try Schedule(serializedBytes: message), owner: owner, at: time)
                try db.execute(sql: """
                    INSERT OR IGNORE INTO task (ownerID, id, plantID, kind, state, dueDay, remindAt, recurring, note, remindedAt)
                    VALUES (?, ?, ?, ?, 1, ?, ?, 1, ?, ?)
                    """, arguments: [owner, id, plantID, row["kind"] as Int, row["dueDay"] as Int, row["remindAt"] as Double,
                                     row["note"] as String? ?? "", row["remindedAt"] as Double?])
            }
            return try TaskRows.fetch(db, "ownerID = ? AND id = ?", [owner, id])[0]
        }
    }

    public func add(_ task: CareTask, dueDay: Int, owner: String) async throws -> CareTask {
        try await writer.write { db in
            let preferences = try SchedulePreferences(wire: Self.preferences(db, owner: owner))
            try db.execute(sql: """
                INSERT OR IGNORE INTO task (ownerID, id, plantID, kind, state, dueDay, remindAt, recurring, note) VALUES (?, ?, ?, ?, 1, ?, ?, 0, ?)
                """, arguments: [owner, task.id, task.plantID, task.type.rawValue, dueDay,
                                 SchedulePlanning.remindAt(LocalDate(dayNumber: dueDay), preferences: preferences).timeIntervalSince1970, task.note])
            return try TaskRows.fetch(db, "ownerID = ? AND id = ?", [owner, task.id])[0]
        }
    }

    public func openTask(plantID: String, kind: Int, owner: String, at time: Date) async throws -> String? {
        try await writer.read { db in
            let today = try SchedulePlanning.today(Self.preferences(db, owner: owner), at: time).dayNumber
            return try String.fetchOne(db, sql: """
                SELECT id FROM \(TaskRows.ofPlant) WHERE ownerID = ? AND plantID = ? AND kind = ? AND state IN (1, 3) AND dueDay <= ?
                ORDER BY dueDay LIMIT 1
                """, arguments: [owner, plantID, kind, today])
        }
    }

    public func recordDone(plantID: String, kind: Int, when: Date, owner: String) async throws -> Schedule? {
        try await writer.write { db in
            let day = try SchedulePlanning.today(Self.preferences(db, owner: owner), at: when).dayNumber
            try db.execute(sql: """
                INSERT OR IGNORE INTO task (ownerID, id, plantID, kind, state, dueDay, remindAt, completedAt, recurring)
                VALUES (?, ?, ?, ?, 2, ?, -1, ?, 0)
                """, arguments: [owner, SchedulingStore.doneID(plantID: plantID, kind: kind, when: when), plantID, kind, day, when.timeIntervalSince1970])
            return try Data.fetchOne(db, sql: "SELECT message FROM schedule WHERE ownerID = ? AND plantID = ?", arguments: [owner, plantID])
                .map { try Schedule(serializedBytes: $0) }
        }
    }

    public func calendarFeed(days: Int, ifVersion: String, owner: String, at time: Date, feeds: CalendarFeeds) async throws -> CalendarFeed {
        try await writer.read { db in
            // One read transaction: the feed rendered below is the version read here.
            let preferences = try Self.preferences(db, owner: owner)
            let today = try SchedulePlanning.today(preferences, at: time)
            let stored = try Int64.fetchOne(db, sql: "SELECT version FROM calendarVersion WHERE ownerID = ?", arguments: [owner]) ?? 0
            let version = CalendarFeed.version(stored: stored, today: today, days: days)
            if version == ifVersion { return CalendarFeed(ics: nil, version: version) }
            if let ics = feeds.feed(owner: owner, version: version) { return CalendarFeed(ics: ics, version: version) }
            let schedules = try Data.fetchAll(db, sql: "SELECT message FROM schedule WHERE ownerID = ?", arguments: [owner]).map {
                try Schedule(serializedBytes: $0)
            }
            let tasks = try TaskRows.fetch(db, "ownerID = ? AND state IN (1, 3) AND dueDay BETWEEN ? AND ? ORDER BY dueDay, plantID",
                                           [owner, today.dayNumber, today.adding(days: days).dayNumber], from: TaskRows.byDay)
            let ics = SchedulingStore.renderCalendar(tasks: tasks, schedules: schedules, preferences: preferences, at: time)
            feeds.keep(ics, owner: owner, version: version)
            return CalendarFeed(ics: ics, version: version)
        }
    }
}
