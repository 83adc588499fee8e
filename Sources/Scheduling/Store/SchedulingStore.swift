import Foundation
import GRDB
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPC
import SwiftProtobuf

/// Schedules, tasks and preferences, scoped by owner. Planning uses `ScheduleGenerator`; tasks of a schedule get
/// ids "plant|kind|date", so planning again never duplicates a task or brings back a completed one.
public struct SchedulingStore: Sendable {
    public typealias Schedule = Plantguide_Scheduling_V1_Schedule
    public typealias Preferences = Plantguide_Scheduling_V1_Preferences
    public typealias CareTask = Plantguide_Scheduling_V1_CareTask

    let writer: any DatabaseWriter
    let now: @Sendable () -> Date
    /// The calendar feeds rendered so far, by user and version.
    public let feeds = CalendarFeeds()

    public init(writer: any DatabaseWriter, now: @escaping @Sendable () -> Date = { Date() }) {
        self.writer = writer
        self.now = now
    }

    // MARK: Preferences

    public func preferences(owner: String) async throws -> Preferences {
        try await writer.read { db in try Self.preferences(db, owner: owner) }
    }

    /// Changes the preferences and plans every schedule of the owner again: the fields named in `mask`, or, with
    /// an empty mask, all of them but an empty notify time or time zone (which keep their stored values).
    /// - Returns: the stored preferences and how many plants were planned again.
    public func putPreferences(_ incoming: Preferences, mask: Google_Protobuf_FieldMask = .init(), owner: String) async throws -> (Preferences, Int) {
        let paths = try mask.paths.map(Self.preferencePath(for:))
        let time = now()
        return try await writer.write { db in
            let stored = try Self.preferences(db, owner: owner)
            let preferences = Self.merge(incoming, into: stored, paths: paths)
            let planner = try SchedulePreferences(wire: preferences)  // validates before writing
            try preferences.validateLimits()
            if preferences.notifyTime != stored.notifyTime || preferences.timeZone != stored.timeZone
                || preferences.remindDaysBefore != stored.remindDaysBefore {
                try Self.retimeReminders(db, owner: owner, preferences: planner)
            }
            try db.execute(sql: "INSERT OR REPLACE INTO preferences VALUES (?, ?)", arguments: [owner, try preferences.serializedData()])
            let schedules = try Data.fetchAll(db, sql: "SELECT message FROM schedule WHERE ownerID = ?", arguments: [owner])
            for message in schedules {
                try Self.plan(db, try Schedule(serializedBytes: message), owner: owner, at: time, preferences: preferences)
            }
            return (preferences, schedules.count)
        }
    }

    // MARK: Schedules

    /// Creates or replaces the schedule of a plant and plans its tasks over the horizon.
    public func putSchedule(_ schedule: Schedule, owner: String) async throws -> (Schedule, [CareTask]) {
        guard !schedule.plantID.isEmpty else { throw SchedulingError.invalidArgument("schedule.plant_id", .required, "plant_id is empty") }
        guard schedule.hasCareInfo else { throw SchedulingError.invalidArgument("schedule.care_info", .required, "care_info is required") }
        if !schedule.startDate.isEmpty, LocalDate(parsing: schedule.startDate) == nil {
            throw SchedulingError.invalidArgument("schedule.start_date", .invalidFormat, "start_date '\(schedule.startDate)' is not YYYY-MM-DD")
        }
        try Self.validateCareLimits(schedule.careInfo)
        let time = now()
        return try await writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO schedule VALUES (?, ?, ?)", arguments: [owner, schedule.plantID, try schedule.serializedData()])
            try Self.plan(db, schedule, owner: owner, at: time)
            return (schedule, try TaskRows.fetch(db, "ownerID = ? AND plantID = ? AND state IN (1, 3) ORDER BY dueDay, kind", [owner, schedule.plantID],
                                                 from: TaskRows.ofPlant))
        }
    }

    /// The longest watering interval a schedule takes, in days.
    public static let maxIntervalDays: UInt32 = 365
    /// The range of a seasonal watering interval multiplier.
    public static let intervalMultipliers: ClosedRange<Double> = 0.1...12

    /// Refuses care values that planning cannot use: intervals beyond a year, multipliers that are not finite
    /// or outside ``intervalMultipliers``, fertilising months outside 1–12.
    static func validateCareLimits(_ care: Plantguide_Caredata_V1_CareInfo) throws {
        guard care.watering.intervalDays <= maxIntervalDays else {
            throw SchedulingError.invalidArgument(
                "schedule.care_info.watering.interval_days", .outOfRange, "care_info.watering.interval_days must be at most \(maxIntervalDays)")
        }
        for (index, adjustment) in care.watering.seasonalAdjustments.enumerated()
        where !(adjustment.intervalMultiplier == 0 || intervalMultipliers.contains(adjustment.intervalMultiplier)) {
            let field = "care_info.watering.seasonal_adjustments[\(index)].interval_multiplier"
            throw SchedulingError.invalidArgument(
                "schedule." + field, .outOfRange,
                "\(field) must be 0 (none) or from \(intervalMultipliers.lowerBound) to \(intervalMultipliers.upperBound)")
        }
        guard care.fertilizer.activeMonths.allSatisfy({ (1...12).contains($0) }) else {
            throw SchedulingError.invalidArgument(
                "schedule.care_info.fertilizer.active_months", .outOfRange, "care_info.fertilizer.active_months are months 1–12")
        }
    }

    /// Counts, at start-up, the schedules whose care values today's limits refuse and the tasks whose times lie
    /// outside proto3's Timestamp range. Both are planned and read clamped, never refused and never fatal.
    static func auditStoredValues(_ db: Database) throws -> (schedules: Int, tasks: Int) {
        let schedules = try Data.fetchAll(db, sql: "SELECT message FROM schedule").filter { message in
            guard let schedule = try? Schedule(serializedBytes: message) else { return true }
            return (try? validateCareLimits(schedule.careInfo)) == nil
        }.count
        let low = Double(WireTimestamp.minimumSeconds)
        let high = Double(WireTimestamp.maximumSeconds) + 1
        let tasks = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM task WHERE NOT (remindAt < 0 OR (remindAt >= \(low) AND remindAt < \(high)))
               OR (completedAt IS NOT NULL AND NOT (completedAt >= \(low) AND completedAt < \(high)))
            """) ?? 0
        return (schedules, tasks)
    }

    public func schedule(plantID: String, owner: String) async throws -> Schedule {
        try await schedule(plantID: plantID, owner: owner, includeOpenTasks: false).schedule
    }

    /// The plant's schedule and, when asked, its open tasks (at most 200, by due date), read in one transaction.
    public func schedule(plantID: String, owner: String, includeOpenTasks: Bool) async throws -> (schedule: Schedule, openTasks: [CareTask]) {
        try await writer.read { db in
            guard let message = try Data.fetchOne(db, sql: "SELECT message FROM schedule WHERE ownerID = ? AND plantID = ?", arguments: [owner, plantID]) else {
                throw SchedulingError(.notFound, "no schedule for plant \(plantID)")
            }
            let tasks = includeOpenTasks
                ? try TaskRows.fetch(db, "ownerID = ? AND plantID = ? AND state IN (1, 3) ORDER BY dueDay, kind LIMIT 200", [owner, plantID],
                                     from: TaskRows.ofPlant)
                : []
            return (try Schedule(serializedBytes: message), tasks)
        }
    }

    /// Deletes every schedule and task of a plant, and its reminders not delivered yet; returns how many tasks
    /// went. Succeeds when there are none.
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

    // MARK: Planning

    /// Plans every schedule again from today, so that the rolling horizon moves forward. Idempotent.
    /// - Returns: how many schedules were planned.
    @discardableResult
    public func extendHorizons() async throws -> Int {
        let time = now()
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

    /// Plans `schedule` from today (or its start date): future open recurring tasks are replaced, and the next
    /// occurrence of each kind counts from its last completion or, if later, its latest overdue open task (so that
    /// planning again keeps the same dates and does not stack a new task on undone ones).
    /// - Parameter preferences: the owner's preferences when the caller has them (planning many schedules).
    static func plan(_ db: Database, _ schedule: Schedule, owner: String, at time: Date, preferences known: Preferences? = nil) throws {
        let wirePreferences = try known ?? preferences(db, owner: owner)
        let preferences = try SchedulePreferences(wire: wirePreferences)
        let today = localDate(time, preferences.timeZone)
        let start = max(today, LocalDate(parsing: schedule.startDate) ?? today)
        var request = ScheduleRequest(care: CareInfo(wire: schedule.careInfo), setting: setting(schedule.setting), start: start)
        request.includePruning = schedule.includePruning
        request.includeRepotting = schedule.includeRepotting
        for row in try Row.fetchAll(db, sql: """
            SELECT kind, MAX(completedAt) AS last FROM \(TaskRows.ofPlant) WHERE ownerID = ? AND plantID = ? AND state = 2 GROUP BY kind
            """, arguments: [owner, schedule.plantID]) {
            if let kind = TaskRows.kind(row["kind"]), let last: Double = row["last"] {
                request.lastDone[kind] = localDate(Date(timeIntervalSince1970: last), preferences.timeZone)
            }
        }
        for row in try Row.fetchAll(db, sql: """
            SELECT kind, MAX(dueDay) AS last FROM \(TaskRows.ofPlant)
            WHERE ownerID = ? AND plantID = ? AND recurring = 1 AND state IN (1, 3) AND dueDay < ? GROUP BY kind
            """, arguments: [owner, schedule.plantID, today.dayNumber]) {
            if let kind = TaskRows.kind(row["kind"]) {
                let overdue = LocalDate(dayNumber: row["last"])
                request.lastDone[kind] = max(request.lastDone[kind] ?? overdue, overdue)
            }
        }
        try db.execute(sql: """
            DELETE FROM \(TaskRows.ofPlant) WHERE ownerID = ? AND plantID = ? AND recurring = 1 AND state = 1 AND dueDay >= ?
            """, arguments: [owner, schedule.plantID, today.dayNumber])
        // Reminders of tasks that will not remind any more (notifications turned off) are cancelled.
        try db.execute(sql: """
            DELETE FROM reminder WHERE ownerID = ? AND taskID IN (SELECT id FROM task WHERE ownerID = ? AND plantID = ? AND state IN (1, 3))
              AND NOT EXISTS (SELECT 1 FROM delivery WHERE delivery.reminderID = reminder.id AND delivery.state = 1)
            """, arguments: [owner, owner, schedule.plantID])
        for task in ScheduleGenerator.plan(request, preferences: preferences) {
            let reminds = remindsPlant(schedule.plantID, kind: task.kind, wirePreferences)
            try db.execute(sql: """
                INSERT OR IGNORE INTO task (ownerID, id, plantID, kind, state, dueDay, remindAt, recurring)
                VALUES (?, ?, ?, ?, 1, ?, ?, 1)
                """, arguments: [owner, "\(schedule.plantID)|\(task.kind.rawValue)|\(task.due)", schedule.plantID,
                                 TaskRows.wireKind(task.kind).rawValue, task.due.dayNumber, reminds ? task.remindAt.timeIntervalSince1970 : -1])
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
            var planner = preferences
            if row["snoozedUntilDay"] as Int? != nil { planner.remindDaysBefore = 0 }  // a snooze reminds on its day
            let remind = remindAt(LocalDate(dayNumber: row["dueDay"]), preferences: planner)
            try db.execute(sql: "UPDATE task SET remindAt = ? WHERE ownerID = ? AND id = ?",
                           arguments: [remind.timeIntervalSince1970, owner, row["id"] as String])
        }
    }

    /// Whether a task of `kind` of plant `plantID` may remind `owner` now: the plant's notifications and the
    /// type's toggle, as the preferences stand at this moment. Every path that produces a reminder asks this
    /// (planning, snoozing, one-off tasks, collecting due reminders, each delivery attempt, the calendar's
    /// alarms), so a toggle turned off stops every reminder of that type from that moment on.
    static func reminds(_ db: Database, owner: String, plantID: String, kind: CareTaskKind) throws -> Bool {
        remindsPlant(plantID, kind: kind, try Self.preferences(db, owner: owner))
    }

    /// The toggles of `preferences` for one plant and type: a per-plant, per-type choice wins; else the plant's
    /// notifications and the type's toggle must both be on.
    static func remindsPlant(_ plantID: String, kind: CareTaskKind, _ preferences: Preferences) -> Bool {
        if let choice = preferences.plantTaskTypes.last(where: { $0.plantID == plantID && $0.type == TaskRows.wireKind(kind) }) {
            return choice.enabled
        }
        return (preferences.plantNotifications[plantID] ?? true) && enabled(kind, preferences)
    }

    /// Watering and fertilising remind by default; pruning, repotting and the rest only when turned on.
    static func enabled(_ kind: CareTaskKind, _ preferences: Preferences) -> Bool {
        if let choice = preferences.taskTypes.first(where: { $0.type == TaskRows.wireKind(kind) }) { return choice.enabled }
        return kind == .watering || kind == .fertilizing
    }

    /// The snake_case name of a mask path, or INVALID_ARGUMENT.
    static func preferencePath(for path: String) throws -> String {
        let known = ["notify_time", "time_zone", "avoid_weekdays", "remind_days_before", "group_watering_days",
                     "seasonal_adjustment", "location", "task_types", "plant_notifications", "plant_task_types"]
        let snake = path.reduce(into: "") { name, character in
            if character.isUppercase { name += "_" + character.lowercased() } else { name.append(character) }
        }
        guard known.contains(snake) else {
            throw SchedulingError.invalidArgument(
                "update_mask.paths", .unknownValue, "update_mask: unknown path '\(path)'; use \(known.joined(separator: ", "))")
        }
        return snake
    }

    /// `incoming` over `stored`: only `paths` when there are any; otherwise everything but an empty notify time or
    /// time zone.
    static func merge(_ incoming: Preferences, into stored: Preferences, paths: [String]) -> Preferences {
        guard !paths.isEmpty else {
            var merged = incoming
            if merged.notifyTime.isEmpty { merged.notifyTime = stored.notifyTime }
            if merged.timeZone.isEmpty { merged.timeZone = stored.timeZone }
            return merged
        }
        var merged = stored
        for path in paths {
            switch path {
            case "notify_time": merged.notifyTime = incoming.notifyTime.isEmpty ? stored.notifyTime : incoming.notifyTime
            case "time_zone": merged.timeZone = incoming.timeZone.isEmpty ? stored.timeZone : incoming.timeZone
            case "avoid_weekdays": merged.avoidWeekdays = incoming.avoidWeekdays
            case "remind_days_before": merged.remindDaysBefore = incoming.remindDaysBefore
            case "group_watering_days": merged.groupWateringDays = incoming.groupWateringDays
            case "seasonal_adjustment": merged.seasonalAdjustment = incoming.seasonalAdjustment
            case "location":
                if incoming.hasLocation { merged.location = incoming.location } else { merged.clearLocation() }
            case "task_types": merged.taskTypes = incoming.taskTypes
            case "plant_notifications": merged.plantNotifications = incoming.plantNotifications
            case "plant_task_types": merged.plantTaskTypes = incoming.plantTaskTypes
            default: break  // preferencePath(for:) admits no other
            }
        }
        return merged
    }

    static func preferences(_ db: Database, owner: String) throws -> Preferences {
        guard let message = try Data.fetchOne(db, sql: "SELECT message FROM preferences WHERE ownerID = ?", arguments: [owner]) else {
            return Preferences.with { $0.notifyTime = "08:00"; $0.timeZone = "UTC"; $0.seasonalAdjustment = true }
        }
        return try Preferences(serializedBytes: message)
    }

    static func localDate(_ instant: Date, _ zone: TimeZone) -> LocalDate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return LocalDate(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    private static func setting(_ wire: Plantguide_Scheduling_V1_PlantSetting) -> PlantSetting {
        switch wire {
        case .outdoor: .outdoor
        case .greenhouse: .greenhouse
        case .balcony: .balcony
        default: .indoor
        }
    }
}
