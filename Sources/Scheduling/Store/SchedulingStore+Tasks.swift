import Foundation
import PlantGuideCore
import PlantGuideProtos
import SwiftProtobuf

extension SchedulingStore {
    public typealias ListRequest = Plantguide_Scheduling_V1_ListTasksRequest

    /// Tasks for a view: open, overdue, today, upcoming (from tomorrow) or a date range, filtered by type and plant,
    /// in day order, with the days they fall on.
    public func list(_ request: ListRequest, owner: String) async throws -> (tasks: [CareTask], days: [(String, [CareTask])]) {
        guard request.limit <= 1_000 else { throw SchedulingError.invalidArgument("limit", .outOfRange, "limit must be at most 1000") }
        var query = TaskQuery()
        query.view = request.view
        query.limit = request.limit == 0 ? 200 : Int(request.limit)
        if request.view == .range {
            guard let from = LocalDate(parsing: request.fromDate), let to = LocalDate(parsing: request.toDate), from <= to else {
                throw SchedulingError.invalidArgument("from_date", .inconsistent, "a range needs from_date <= to_date as YYYY-MM-DD")
            }
            query.range = from.dayNumber...to.dayNumber
        }
        query.types = request.types.map(\.rawValue)
        query.plantID = request.plantID
        let tasks = try await records.tasks(query, owner: owner, at: now())
        var days: [(String, [CareTask])] = []
        for task in tasks {
            if days.last?.0 == task.dueDate { days[days.count - 1].1.append(task) } else { days.append((task.dueDate, [task])) }
        }
        return (tasks, days)
    }

    /// Overdue and today's open tasks.
    public func badge(owner: String) async throws -> (overdue: Int, today: Int) {
        try await records.badge(owner: owner, at: now())
    }

    /// Tasks (not skipped) per local day in [from, to], for a month view.
    public func counts(from: String, to: String, owner: String) async throws -> [String: UInt32] {
        guard let first = LocalDate(parsing: from), let last = LocalDate(parsing: to), first <= last, first.days(to: last) <= 366 else {
            throw SchedulingError.invalidArgument("from_date", .inconsistent, "from_date and to_date must be YYYY-MM-DD, in order, at most a year apart")
        }
        let counts = try await records.counts(firstDay: first.dayNumber, lastDay: last.dayNumber, owner: owner)
        return Dictionary(uniqueKeysWithValues: counts.map { (LocalDate(dayNumber: $0.key).description, $0.value) })
    }

    /// Marks tasks done (idempotent) and plans their plants again, so the next occurrence counts from `at`.
    public func complete(ids: [String], at: Date?, owner: String) async throws -> (completed: [CareTask], planned: [CareTask]) {
        guard !ids.isEmpty else { throw SchedulingError.invalidArgument("task_ids", .required, "task_ids is empty") }
        let time = now()
        return try await records.complete(ids: ids, when: (at ?? time).timeIntervalSince1970, owner: owner, at: time)
    }

    /// Snoozes an open task by some hours (its reminder moves) or to a later date (its due date moves).
    public func snooze(id: String, hours: UInt32?, until date: String?, owner: String) async throws -> CareTask {
        let time = now()
        let day: LocalDate?
        if let hours, hours > 0 {
            day = nil
        } else if let date, let parsed = LocalDate(parsing: date) {
            day = parsed
        } else {
            throw SchedulingError.invalidArgument("until", .required, "give hours, or a date as YYYY-MM-DD")
        }
        return try await records.snooze(id: id, owner: owner) { preferences in
            guard let day else { return (nil, time.timeIntervalSince1970 + Double(hours ?? 0) * 3_600) }
            guard day > Self.localDate(time, preferences.timeZone) else {
                throw SchedulingError.invalidArgument("date", .outOfRange, "snooze to a later date")
            }
            var planner = preferences
            planner.remindDaysBefore = 0
            return (day.dayNumber, SchedulePlanning.remindAt(day, preferences: planner).timeIntervalSince1970)
        }
    }

    /// Refuses a change to a task that is completed or skipped.
    static func requireOpen(_ task: CareTask) throws {
        guard task.state == .scheduled || task.state == .snoozed else {
            throw SchedulingError(.failedPrecondition, "task \(task.id) is \(task.state == .completed ? "completed" : "skipped")")
        }
    }

    public func skip(id: String, owner: String) async throws -> CareTask {
        try await records.skip(id: id, owner: owner)
    }

    /// Undoes a completion or a skip: the task is open again, due when it was; the occurrences a completion planned
    /// are planned again from the completions before it. Idempotent.
    public func reopen(id: String, owner: String) async throws -> CareTask {
        guard !id.isEmpty else { throw SchedulingError.invalidArgument("task_id", .required, "task_id is empty") }
        return try await records.reopen(id: id, owner: owner, at: now())
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
        return try await records.add(task, dueDay: due.dayNumber, owner: owner)
    }

    /// "I watered it", from the journal: completes the open task of that kind due by today; with none, the care
    /// is still recorded so the next occurrence counts from it.
    public func recordCareEvent(plantID: String, type: Plantguide_Scheduling_V1_TaskType, at: Date?, owner: String) async throws -> CareTask? {
        guard TaskRows.kind(type.rawValue) != nil else { throw SchedulingError.invalidArgument("type", .required, "type is required") }
        let time = now()
        let when = at ?? time
        if let open = try await records.openTask(plantID: plantID, kind: type.rawValue, owner: owner, at: time) {
            return try await complete(ids: [open], at: when, owner: owner).completed.first
        }
        if let schedule = try await records.recordDone(plantID: plantID, kind: type.rawValue, when: when, owner: owner) {
            _ = try await putSchedule(schedule, owner: owner)  // the next occurrence counts from `when`
        }
        return nil
    }

    /// The id of care recorded without a task: plant, kind and time, so that recording it again is a no-op.
    static func doneID(plantID: String, kind: Int, when: Date) -> String {
        let domainKind = TaskRows.kind(kind)?.rawValue ?? "\(kind)"
        return "\(plantID)|\(domainKind)|done|\(Int(when.timeIntervalSince1970))"
    }
}
