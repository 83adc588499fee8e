import Foundation
import GRDB
import PlantGuideCore
import PlantGuideProtos
import SwiftProtobuf

extension SchedulingStore {
    public typealias ListRequest = Plantguide_Scheduling_V1_ListTasksRequest

    /// Tasks for a view: open, overdue, today, upcoming (from tomorrow) or a date range, filtered by type and plant.
    /// Read in day order through taskByDay (or one plant's through taskByPlant), stopping at the limit.
    public func list(_ request: ListRequest, owner: String) async throws -> (tasks: [CareTask], days: [(String, [CareTask])]) {
        guard request.limit <= 1_000 else { throw SchedulingError.invalidArgument("limit", .outOfRange, "limit must be at most 1000") }
        let limit = request.limit == 0 ? 200 : Int(request.limit)
        let time = now()
        return try await writer.read { db in
            let today = Self.localDate(time, try SchedulePreferences(wire: Self.preferences(db, owner: owner)).timeZone).dayNumber
            var conditions = ["ownerID = ?"]
            var arguments: [any DatabaseValueConvertible] = [owner]
            switch request.view {
            case .overdue: conditions.append("state IN (1, 3) AND dueDay < \(today)")
            case .today: conditions.append("state IN (1, 3) AND dueDay = \(today)")
            case .upcoming: conditions.append("state IN (1, 3) AND dueDay > \(today)")
            case .range:
                guard let from = LocalDate(parsing: request.fromDate), let to = LocalDate(parsing: request.toDate), from <= to else {
                    throw SchedulingError.invalidArgument("from_date", .inconsistent, "a range needs from_date <= to_date as YYYY-MM-DD")
                }
                conditions.append("dueDay BETWEEN \(from.dayNumber) AND \(to.dayNumber)")
            default: conditions.append("state IN (1, 3)")
            }
            if !request.types.isEmpty {
                conditions.append("kind IN (\(request.types.map { _ in "?" }.joined(separator: ", ")))")
                arguments += request.types.map(\.rawValue)
            }
            if !request.plantID.isEmpty {
                conditions.append("plantID = ?")
                arguments.append(request.plantID)
            }
            let tasks = try TaskRows.fetch(db, conditions.joined(separator: " AND ") + " ORDER BY dueDay, plantID, kind LIMIT \(limit)", arguments,
                                           from: request.plantID.isEmpty ? TaskRows.byDay : TaskRows.ofPlant)
            var days: [(String, [CareTask])] = []
            for task in tasks {
                if days.last?.0 == task.dueDate { days[days.count - 1].1.append(task) } else { days.append((task.dueDate, [task])) }
            }
            return (tasks, days)
        }
    }

    /// Overdue and today's open tasks.
    public func badge(owner: String) async throws -> (overdue: Int, today: Int) {
        let time = now()
        return try await writer.read { db in
            let today = Self.localDate(time, try SchedulePreferences(wire: Self.preferences(db, owner: owner)).timeZone).dayNumber
            let row = try Row.fetchOne(db, sql: """
                SELECT COALESCE(SUM(dueDay < ?), 0), COALESCE(SUM(dueDay = ?), 0) FROM task WHERE ownerID = ? AND state IN (1, 3)
                """, arguments: [today, today, owner])
            return (row?[0] ?? 0, row?[1] ?? 0)
        }
    }

    /// Tasks (not skipped) per local day in [from, to], for a month view.
    public func counts(from: String, to: String, owner: String) async throws -> [String: UInt32] {
        guard let first = LocalDate(parsing: from), let last = LocalDate(parsing: to), first <= last, first.days(to: last) <= 366 else {
            throw SchedulingError.invalidArgument("from_date", .inconsistent, "from_date and to_date must be YYYY-MM-DD, in order, at most a year apart")
        }
        return try await writer.read { db in
            var counts: [String: UInt32] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT dueDay, COUNT(*) FROM task WHERE ownerID = ? AND state <> 4 AND dueDay BETWEEN ? AND ? GROUP BY dueDay
                """, arguments: [owner, first.dayNumber, last.dayNumber]) {
                counts[LocalDate(dayNumber: row[0]).description] = row[1]
            }
            return counts
        }
    }

    /// Marks tasks done (idempotent) and plans their plants again, so the next occurrence counts from `at`.
    public func complete(ids: [String], at: Date?, owner: String) async throws -> (completed: [CareTask], planned: [CareTask]) {
        guard !ids.isEmpty else { throw SchedulingError.invalidArgument("task_ids", .required, "task_ids is empty") }
        let time = now()
        let when = (at ?? time).timeIntervalSince1970
        return try await writer.write { db in
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

    /// Snoozes an open task by some hours (its reminder moves) or to a later date (its due date moves).
    public func snooze(id: String, hours: UInt32?, until date: String?, owner: String) async throws -> CareTask {
        let time = now()
        return try await writer.write { db in
            guard let task = try TaskRows.fetch(db, "ownerID = ? AND id = ?", [owner, id]).first else { throw SchedulingError(.notFound, "no task \(id)") }
            guard task.state == .scheduled || task.state == .snoozed else {
                throw SchedulingError(.failedPrecondition, "task \(id) is \(task.state == .completed ? "completed" : "skipped")")
            }
            let preferences = try SchedulePreferences(wire: Self.preferences(db, owner: owner))
            if let hours, hours > 0 {
                try db.execute(sql: "UPDATE task SET state = 3, remindAt = ?, remindedAt = NULL WHERE ownerID = ? AND id = ?",
                               arguments: [time.timeIntervalSince1970 + Double(hours) * 3_600, owner, id])
            } else if let date, let day = LocalDate(parsing: date) {
                guard day > Self.localDate(time, preferences.timeZone) else {
                    throw SchedulingError.invalidArgument("date", .outOfRange, "snooze to a later date")
                }
                var planner = preferences
                planner.remindDaysBefore = 0
                let remind = Self.remindAt(day, preferences: planner)
                try db.execute(sql: "UPDATE task SET state = 3, dueDay = ?, snoozedUntilDay = ?, remindAt = ?, remindedAt = NULL WHERE ownerID = ? AND id = ?",
                               arguments: [day.dayNumber, day.dayNumber, remind.timeIntervalSince1970, owner, id])
            } else {
                throw SchedulingError.invalidArgument("until", .required, "give hours, or a date as YYYY-MM-DD")
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

    /// A one-off task under the client's id (adding it again is a no-op).
    public func add(_ task: CareTask, owner: String) async throws -> CareTask {
        guard !task.id.isEmpty, !task.id.contains("|") else {
            throw SchedulingError.invalidArgument("task.id", .invalidFormat, "a task needs an id without '|'")
        }
        guard !task.plantID.isEmpty else { throw SchedulingError.invalidArgument("task.plant_id", .required, "a task needs a plant_id") }
        guard task.type != .unspecified else { throw SchedulingError.invalidArgument("task.type", .required, "a task needs a type") }
        guard let due = LocalDate(parsing: task.dueDate) else {
            throw SchedulingError.invalidArgument("task.due_date", .invalidFormat, "a task needs a due_date as YYYY-MM-DD")
        }
        return try await writer.write { db in
            let preferences = try SchedulePreferences(wire: Self.preferences(db, owner: owner))
            try db.execute(sql: """
                INSERT OR IGNORE INTO task (ownerID, id, plantID, kind, state, dueDay, remindAt, recurring, note) VALUES (?, ?, ?, ?, 1, ?, ?, 0, ?)
                """, arguments: [owner, task.id, task.plantID, task.type.rawValue, due.dayNumber,
                                 Self.remindAt(due, preferences: preferences).timeIntervalSince1970, task.note])
            return try TaskRows.fetch(db, "ownerID = ? AND id = ?", [owner, task.id])[0]
        }
    }

    /// "I watered it", from the journal: completes the open task of that kind due by today; with none, the care
    /// is still recorded so the next occurrence counts from it.
    public func recordCareEvent(plantID: String, type: Plantguide_Scheduling_V1_TaskType, at: Date?, owner: String) async throws -> CareTask? {
        guard let kind = TaskRows.kind(type.rawValue) else { throw SchedulingError.invalidArgument("type", .required, "type is required") }
        let time = now()
        let when = at ?? time
        let open: String? = try await writer.read { db in
            let today = Self.localDate(time, try SchedulePreferences(wire: Self.preferences(db, owner: owner)).timeZone).dayNumber
            return try String.fetchOne(db, sql: """
                SELECT id FROM \(TaskRows.ofPlant) WHERE ownerID = ? AND plantID = ? AND kind = ? AND state IN (1, 3) AND dueDay <= ?
                ORDER BY dueDay LIMIT 1
                """, arguments: [owner, plantID, type.rawValue, today])
        }
        if let open { return try await complete(ids: [open], at: when, owner: owner).completed.first }
        let id = "\(plantID)|\(kind.rawValue)|done|\(Int(when.timeIntervalSince1970))"
        let schedule: Schedule? = try await writer.write { db in
            let zone = try SchedulePreferences(wire: Self.preferences(db, owner: owner)).timeZone
            try db.execute(sql: """
                INSERT OR IGNORE INTO task (ownerID, id, plantID, kind, state, dueDay, remindAt, completedAt, recurring)
                VALUES (?, ?, ?, ?, 2, ?, -1, ?, 0)
                """, arguments: [owner, id, plantID, type.rawValue, Self.localDate(when, zone).dayNumber, when.timeIntervalSince1970])
            return try Data.fetchOne(db, sql: "SELECT message FROM schedule WHERE ownerID = ? AND plantID = ?", arguments: [owner, plantID])
                .map { try Schedule(serializedBytes: $0) }
        }
        if let schedule { _ = try await putSchedule(schedule, owner: owner) }  // the next occurrence counts from `when`
        return nil
    }

    static func remindAt(_ due: LocalDate, preferences: SchedulePreferences) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = preferences.timeZone
        let (year, month, day) = due.adding(days: -preferences.remindDaysBefore).components
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: preferences.notifyTime.hour,
                                                  minute: preferences.notifyTime.minute)) ?? Date(timeIntervalSince1970: Double(due.dayNumber) * 86_400)
    }
}
