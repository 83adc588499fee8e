import Foundation
import PlantGuideCore
import PlantGuideProtos
import Synchronization

/// A user's calendar feed as GetCalendar answers it.
public struct CalendarFeed: Sendable, Equatable {
    /// The iCalendar document; nil when the caller's version is current (`notModified`).
    public var ics: String?
    /// The feed's version: new whenever the user's tasks, schedules or preferences change, the day changes in
    /// their time zone, or `days` differs.
    public var version: String

    public var notModified: Bool { ics == nil }

    /// The version of a feed: the user's stored calendar version (random, new with every change of their tasks,
    /// schedules or preferences), the day, and the days shown.
    static func version(stored: Int64, today: LocalDate, days: Int) -> String {
        String(UInt64(bitPattern: stored), radix: 16) + "-\(today.dayNumber)-\(days)"
    }
}

extension SchedulingStore {
    /// The owner's open tasks of the next `days` days as an iCalendar document.
    public func calendar(days: Int, owner: String) async throws -> String {
        try await calendarFeed(days: days, ifVersion: "", owner: owner).ics ?? ""
    }

    /// The owner's calendar feed of the next `days` days, or only its version when that is `ifVersion`.
    ///
    /// A feed is rendered once per version and kept in memory (``CalendarFeeds``), so that calendar clients
    /// polling an unchanged feed cost two primary-key reads: the version and the time zone.
    public func calendarFeed(days: Int, ifVersion: String, owner: String) async throws -> CalendarFeed {
        try await records.calendarFeed(days: days, ifVersion: ifVersion, owner: owner, at: now(), feeds: feeds)
    }

    /// The iCalendar document of `tasks` (named after their plants' `schedules`), with alarms for the tasks that
    /// remind under `preferences`.
    static func renderCalendar(tasks: [CareTask], schedules: [Schedule], preferences: Preferences, at time: Date) -> String {
        var names: [String: String] = [:]
        for schedule in schedules {
            names[schedule.plantID] = schedule.plantName.isEmpty ? schedule.careInfo.scientificName : schedule.plantName
        }
        let events = tasks.map { task in
            let reminds = TaskRows.kind(task.type.rawValue).map { remindsPlant(task.plantID, kind: $0, preferences) } ?? false
            return CalendarEvent(
                uid: "\(task.id)@plantguide", summary: "\(verb(task.type)) \(names[task.plantID] ?? task.plantID)",
                description: task.note, due: LocalDate(parsing: task.dueDate)!,
                alarmAt: reminds && task.hasRemindAt ? task.remindAt.date : nil)
        }
        return ICalendar.render(events, name: "PlantGuide care", stamp: time)
    }

    private static func verb(_ type: Plantguide_Scheduling_V1_TaskType) -> String {
        switch type {
        case .watering: "Water"
        case .fertilizing: "Fertilise"
        case .pruning: "Prune"
        case .repotting: "Repot"
        case .pestControl: "Check for pests:"
        case .rotation: "Rotate"
        case .harvest: "Harvest"
        default: "Care for"
        }
    }
}

/// The calendar feeds rendered by this process, one per user under the version it was rendered at; shared by
/// every copy of the store. At most `capacity` users' feeds are kept (all are dropped when it fills: a feed
/// costs one rendering to make again).
public final class CalendarFeeds: Sendable {
    private struct State {
        var feeds: [String: (version: String, ics: String)] = [:]
        var renders = 0
    }

    private let capacity: Int
    private let state = Mutex(State())

    public init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// How many feeds were rendered (a poll answered from the version or from memory renders none).
    public var renders: Int { state.withLock { $0.renders } }

    func feed(owner: String, version: String) -> String? {
        state.withLock { state in state.feeds[owner].flatMap { $0.version == version ? $0.ics : nil } }
    }

    func keep(_ ics: String, owner: String, version: String) {
        state.withLock { state in
            state.renders += 1
            if state.feeds.count >= capacity, state.feeds[owner] == nil { state.feeds.removeAll() }
            state.feeds[owner] = (version, ics)
        }
    }
}
