import Foundation
import PlantGuideCore
import PlantGuideProtos

/// Planning a schedule, as both backends do it inside their write transaction: what they read (the last
/// completion and the latest overdue open task of each kind) goes in, the tasks to insert come out. Future open
/// recurring tasks are replaced by the backend before it inserts these; ids "plant|kind|date" make inserting again
/// a no-op, so planning never duplicates a task or brings back a completed one.
enum SchedulePlanning {
    /// A task to insert (unless its id exists): kind as the wire's number, due day number, and the reminder time
    /// in seconds (-1 when it does not remind).
    struct PlannedTask: Sendable {
        var id: String
        var kind: Int
        var dueDay: Int
        var remindAt: Double
    }

    /// What the backend read about one plant's history.
    struct History: Sendable, Equatable {
        /// The latest completion time (seconds) by wire kind.
        var lastCompleted: [Int: Double] = [:]
        /// The latest due day of an overdue open recurring task by wire kind.
        var lastOverdue: [Int: Int] = [:]
    }

    /// The day planning starts from for `preferences` at `time`: today in the owner's time zone.
    static func today(_ preferences: Plantguide_Scheduling_V1_Preferences, at time: Date) throws -> LocalDate {
        SchedulingStore.localDate(time, try SchedulePreferences(wire: preferences).timeZone)
    }

    /// The tasks of `schedule` from today (or its start date) over the horizon: the next occurrence of each kind
    /// counts from its last completion or, if later, its latest overdue open task (so that planning again keeps the
    /// same dates and does not stack a new task on undone ones).
    static func tasks(_ schedule: Plantguide_Scheduling_V1_Schedule, preferences wire: Plantguide_Scheduling_V1_Preferences,
                      history: History, at time: Date) throws -> [PlannedTask] {
        let preferences = try SchedulePreferences(wire: wire)
        let today = SchedulingStore.localDate(time, preferences.timeZone)
        let start = max(today, LocalDate(parsing: schedule.startDate) ?? today)
        var request = ScheduleRequest(care: CareInfo(wire: schedule.careInfo), setting: setting(schedule.setting), start: start)
        request.includePruning = schedule.includePruning
        request.includeRepotting = schedule.includeRepotting
        for (raw, last) in history.lastCompleted {
            if let kind = TaskRows.kind(raw) { request.lastDone[kind] = SchedulingStore.localDate(Date(timeIntervalSince1970: last), preferences.timeZone) }
        }
        for (raw, day) in history.lastOverdue {
            if let kind = TaskRows.kind(raw) {
                let overdue = LocalDate(dayNumber: day)
                request.lastDone[kind] = max(request.lastDone[kind] ?? overdue, overdue)
            }
        }
        return ScheduleGenerator.plan(request, preferences: preferences).map { task in
            let reminds = SchedulingStore.remindsPlant(schedule.plantID, kind: task.kind, wire)
            return PlannedTask(id: "\(schedule.plantID)|\(task.kind.rawValue)|\(task.due)", kind: TaskRows.wireKind(task.kind).rawValue,
                               dueDay: task.due.dayNumber, remindAt: reminds ? task.remindAt.timeIntervalSince1970 : -1)
        }
    }

    /// Where a task not planned from a schedule reminds: `day`'s notify time, `remindDaysBefore` earlier.
    static func remindAt(_ due: LocalDate, preferences: SchedulePreferences) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = preferences.timeZone
        let (year, month, day) = due.adding(days: -preferences.remindDaysBefore).components
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: preferences.notifyTime.hour,
                                                  minute: preferences.notifyTime.minute)) ?? Date(timeIntervalSince1970: Double(due.dayNumber) * 86_400)
    }

    /// The new reminder time of a task not yet reminded when the preferences change: its due day's notify time
    /// (on the day itself for a task snoozed to a date).
    static func retimed(dueDay: Int, snoozed: Bool, preferences: SchedulePreferences) -> Double {
        var planner = preferences
        if snoozed { planner.remindDaysBefore = 0 }  // a snooze reminds on its day
        return remindAt(LocalDate(dayNumber: dueDay), preferences: planner).timeIntervalSince1970
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
