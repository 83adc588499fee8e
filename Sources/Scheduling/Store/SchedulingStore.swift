import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPCCore
import SwiftProtobuf

/// Schedules, tasks and preferences, scoped by owner. It validates what callers send; planning is
/// ``SchedulePlanning``'s, and the records (SQLite or PostgreSQL) keep the rows.
public struct SchedulingStore: Sendable {
    public typealias Schedule = Plantguide_Scheduling_V1_Schedule
    public typealias Preferences = Plantguide_Scheduling_V1_Preferences
    public typealias CareTask = Plantguide_Scheduling_V1_CareTask

    let records: any SchedulingRecords
    let now: @Sendable () -> Date
    /// The calendar feeds rendered so far, by user and version.
    public let feeds = CalendarFeeds()

    public init(records: any SchedulingRecords, now: @escaping @Sendable () -> Date = { Date() }) {
        self.records = records
        self.now = now
    }

    /// The preferences of a user who never set any.
    static let defaultPreferences = Preferences.with { $0.notifyTime = "08:00"; $0.timeZone = "UTC"; $0.seasonalAdjustment = true }

    // MARK: Preferences

    public func preferences(owner: String) async throws -> Preferences {
        try await records.preferences(owner: owner)
    }

    /// Changes the preferences and plans every schedule of the owner again: the fields named in `mask`, or, with
    /// an empty mask, all of them but an empty notify time or time zone (which keep their stored values).
    /// - Returns: the stored preferences and how many plants were planned again.
    public func putPreferences(_ incoming: Preferences, mask: Google_Protobuf_FieldMask = .init(), owner: String) async throws -> (Preferences, Int) {
        let paths = try mask.paths.map(Self.preferencePath(for:))
        return try await records.updatePreferences(owner: owner, at: now()) { stored in
            let preferences = Self.merge(incoming, into: stored, paths: paths)
            _ = try SchedulePreferences(wire: preferences)  // validates before writing
            try preferences.validateLimits()
            return preferences
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
        return (schedule, try await records.putSchedule(schedule, owner: owner, at: now()))
    }

    /// The longest watering interval a schedule takes, in days.
    public static let maxIntervalDays: UInt32 = 365
    /// The range of a seasonal watering interval multiplier.
    public static let intervalMultipliers: ClosedRange<Double> = 0.1...12

    /// Refuses care values that planning cannot use: intervals beyond a year, multipliers that are not finite
    /// or outside ``intervalMultipliers``, fertilising or harvest months outside 1–12.
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
        guard care.harvest.months.allSatisfy({ (1...12).contains($0) }) else {
            throw SchedulingError.invalidArgument(
                "schedule.care_info.harvest.months", .outOfRange, "care_info.harvest.months are months 1–12")
        }
    }

    public func schedule(plantID: String, owner: String) async throws -> Schedule {
        try await schedule(plantID: plantID, owner: owner, includeOpenTasks: false).schedule
    }

    /// The plant's schedule and, when asked, its open tasks (at most 200, by due date), read in one transaction.
    public func schedule(plantID: String, owner: String, includeOpenTasks: Bool) async throws -> (schedule: Schedule, openTasks: [CareTask]) {
        let found = try await encodedSchedule(plantID: plantID, owner: owner, includeOpenTasks: includeOpenTasks)
        return (try Schedule(serializedBytes: found.schedule), found.openTasks)
    }

    /// ``schedule(plantID:owner:includeOpenTasks:)`` with the schedule as stored, its message's encoding: for an
    /// answer that carries it on as it is.
    public func encodedSchedule(plantID: String, owner: String, includeOpenTasks: Bool) async throws -> (schedule: Data, openTasks: [CareTask]) {
        guard let found = try await records.encodedSchedule(plantID: plantID, owner: owner, includeOpenTasks: includeOpenTasks) else {
            throw SchedulingError(.notFound, "no schedule for plant \(plantID)")
        }
        return found
    }

    /// Deletes every schedule and task of a plant, and its reminders not delivered yet; returns how many tasks
    /// went. Succeeds when there are none.
    public func deleteSchedules(plantID: String, owner: String) async throws -> Int {
        try await records.deleteSchedules(plantID: plantID, owner: owner)
    }

    // MARK: Planning

    /// Plans every schedule again from today, so that the rolling horizon moves forward. Idempotent.
    /// - Returns: how many schedules were planned.
    @discardableResult
    public func extendHorizons() async throws -> Int {
        try await records.extendHorizons(at: now())
    }

    /// Extends the horizons if no replica did today (UTC): once a day across replicas, and on SQLite at this
    /// process's first call of the day. A replica that dies during the extension leaves the rest to the next day's
    /// (plans reach 30 days ahead, so a day missed shortens them by a day). Returns how many schedules were planned.
    @discardableResult
    public func extendHorizonsOncePerDay() async throws -> Int {
        let time = now()
        guard try await records.claimHorizonExtension(day: Int(time.timeIntervalSince1970 / 86_400), at: time) else { return 0 }
        return try await records.extendHorizons(at: time)
    }

    /// Whether a task of `kind` of plant `plantID` may remind its owner under `preferences`. Every path that
    /// produces a reminder asks this as the preferences stand at that moment (planning, snoozing, one-off tasks,
    /// collecting due reminders, each delivery attempt, the calendar's alarms), so a toggle turned off stops every
    /// reminder of that type from that moment on.
    ///
    /// A per-plant, per-type choice wins; else the plant's notifications and the type's toggle must both be on.
    static func remindsPlant(_ plantID: String, kind: CareTaskKind, _ preferences: Preferences) -> Bool {
        if let choice = preferences.plantTaskTypes.last(where: { $0.plantID == plantID && $0.type == TaskRows.wireKind(kind) }) {
            return choice.enabled
        }
        return (preferences.plantNotifications[plantID] ?? true) && enabled(kind, preferences)
    }

    /// Watering, fertilising and harvest (planned for crops only) remind by default; pruning, repotting and the
    /// rest only when turned on.
    static func enabled(_ kind: CareTaskKind, _ preferences: Preferences) -> Bool {
        if let choice = preferences.taskTypes.first(where: { $0.type == TaskRows.wireKind(kind) }) { return choice.enabled }
        return kind == .watering || kind == .fertilizing || kind == .harvest
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

    static func localDate(_ instant: Date, _ zone: TimeZone) -> LocalDate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return LocalDate(year: parts.year!, month: parts.month!, day: parts.day!)
    }
}
