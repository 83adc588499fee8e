import Foundation
import GRDB
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
        let time = now()
        let feeds = self.feeds
        return try await writer.read { db in
            // One read transaction: the feed rendered below is the version read here.
            let preferences = try Self.preferences(db, owner: owner)
            let today = Self.localDate(time, try SchedulePreferences(wire: preferences).timeZone)
            let stored = try Int64.fetchOne(db, sql: "SELECT version FROM calendarVersion WHERE ownerID = ?", arguments: [owner]) ?? 0
            let version = String(UInt64(bitPattern: stored), radix: 16) + "-\(today.dayNumber)-\(days)"
            if version == ifVersion { return CalendarFeed(ics: nil, version: version) }
            if let ics = feeds.feed(owner: owner, version: version) { return CalendarFeed(ics: ics, version: version) }
            let ics = try Self.renderCalendar(db, days: days, today: today, preferences: preferences, owner: owner, at: time)
            feeds.keep(ics, owner: owner, version: version)
            return CalendarFeed(ics: ics, version: version)
        }
    }

    /// The iCalendar document of the owner's open tasks from `today` to `days` later, with alarms for the tasks
    /// that remind under `preferences`.
    static func renderCalendar(_ db: Database, days: Int, today: LocalDate, preferences: Preferences, owner: String, at time: Date) throws -> String {
        var names: [String: String] = [:]
        for message in try Data.fetchAll(db, sql: "SELECT message FROM schedule WHERE ownerID = ?", arguments: [owner]) {
            let schedule = try Schedule(serializedBytes: message)
            names[schedule.plantID] = schedule.plantName.isEmpty ? schedule.careInfo.scientificName : schedule.plantName
        }
        let tasks = try TaskRows.fetch(db, "ownerID = ? AND state IN (1, 3) AND dueDay BETWEEN ? AND ? ORDER BY dueDay, plantID",
                                       [owner, today.dayNumber, today.adding(days: days).dayNumber], from: TaskRows.byDay)
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
