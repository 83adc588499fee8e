import Foundation
import PlantGuideCore
import PlantGuideProtos

/// Where scheduling keeps its records: SQLite (``SQLiteScheduling``, the default) or PostgreSQL
/// (``PostgresScheduling``, for replicas). Each method is one transaction scoped by owner, except the reminder
/// dispatcher's, which walk every user's due work. ``SchedulingStore`` validates what callers send and plans with
/// ``SchedulePlanning``; a backend reads and writes rows.
public protocol SchedulingRecords: Sendable {
    typealias Schedule = Plantguide_Scheduling_V1_Schedule
    typealias Preferences = Plantguide_Scheduling_V1_Preferences
    typealias CareTask = Plantguide_Scheduling_V1_CareTask

    // MARK: Preferences and schedules

    func preferences(owner: String) async throws -> Preferences
    /// Replaces the preferences with `merge(stored)` and plans every schedule of the owner again; reminders not
    /// yet sent move when the notify time, time zone or days before changed. Returns them and how many schedules
    /// were planned.
    func updatePreferences(owner: String, at time: Date, _ merge: @escaping @Sendable (Preferences) throws -> Preferences) async throws
        -> (Preferences, Int)
    /// Stores the schedule and plans it; returns the plant's open tasks.
    func putSchedule(_ schedule: Schedule, owner: String, at time: Date) async throws -> [CareTask]
    /// The schedule as stored (its message's encoding) and, when asked, its open tasks (at most 200); nil when
    /// there is none.
    func encodedSchedule(plantID: String, owner: String, includeOpenTasks: Bool) async throws -> (schedule: Data, openTasks: [CareTask])?
    /// Deletes a plant's schedule, tasks and undelivered reminders; returns how many tasks went.
    func deleteSchedules(plantID: String, owner: String) async throws -> Int
    /// Plans every schedule of every user again from `time`'s day; returns how many.
    func extendHorizons(at time: Date) async throws -> Int
    /// Whether this process is the one to extend the horizons on UTC day `day` (days since 1970): false when it or
    /// another replica did so already. A backend one process uses alone (SQLite) says true each time it is asked.
    func claimHorizonExtension(day: Int, at time: Date) async throws -> Bool
    /// The owner's schedules with a plant id after `after`, in plant order, at most `limit`; messages that no longer
    /// parse are skipped.
    func schedules(after: String, limit: Int, owner: String) async throws -> [Schedule]
    /// Renames a plant's schedule; nil when there is none.
    func rename(plantID: String, to name: String, owner: String) async throws -> Schedule?
    /// Deletes everything of `owner`; returns how many schedules and tasks went.
    func deleteAll(owner: String) async throws -> (schedules: Int, tasks: Int)

    // MARK: Tasks

    /// Tasks matching `query`, in day order.
    func tasks(_ query: TaskQuery, owner: String, at time: Date) async throws -> [CareTask]
    /// Overdue and today's open tasks.
    func badge(owner: String, at time: Date) async throws -> (overdue: Int, today: Int)
    /// Tasks (not skipped) per day number in [first, last].
    func counts(firstDay: Int, lastDay: Int, owner: String) async throws -> [Int: UInt32]
    /// Open tasks per plant (every plant with a schedule when `plantIDs` is empty).
    func taskCounts(plantIDs: [String], owner: String, at time: Date) async throws -> [String: Plantguide_Scheduling_V1_PlantTaskCounts]
    /// Marks tasks done at `when` and plans their plants again.
    /// - Throws: NOT_FOUND naming the first id the owner has no task of.
    func complete(ids: [String], when: Double, owner: String, at time: Date) async throws -> (completed: [CareTask], planned: [CareTask])
    /// Snoozes an open task: its reminder to `remindAt` (and, with `day`, its due date to it).
    /// - Throws: NOT_FOUND, or FAILED_PRECONDITION for a task that is completed or skipped.
    func snooze(id: String, owner: String, _ change: @escaping @Sendable (SchedulePreferences) throws -> (day: Int?, remindAt: Double)) async throws
        -> CareTask
    /// - Throws: NOT_FOUND, or FAILED_PRECONDITION for a completed task.
    func skip(id: String, owner: String) async throws -> CareTask
    /// Opens a completed or skipped task again (an open one is returned as it is) and, for a completed recurring
    /// task, plans its plant again, the task kept as it was due.
    /// - Throws: NOT_FOUND.
    func reopen(id: String, owner: String, at time: Date) async throws -> CareTask
    /// Adds a one-off task unless its id exists; returns the stored task.
    func add(_ task: CareTask, dueDay: Int, owner: String) async throws -> CareTask
    /// The earliest open task of the plant and kind due by today, if any.
    func openTask(plantID: String, kind: Int, owner: String, at time: Date) async throws -> String?
    /// Records care done at `when` without an open task (a completed one-off row); returns the plant's schedule.
    func recordDone(plantID: String, kind: Int, when: Date, owner: String) async throws -> Schedule?

    // MARK: Calendar and webhooks

    /// The owner's calendar feed of `days` days from today, rendered only when its version is not `ifVersion` and
    /// `feeds` does not hold it.
    func calendarFeed(days: Int, ifVersion: String, owner: String, at time: Date, feeds: CalendarFeeds) async throws -> CalendarFeed
    func registerWebhook(id: String, url: String, secret: String, owner: String) async throws
    func deleteWebhook(id: String, owner: String) async throws -> Bool

    // MARK: Push subscriptions

    /// Keeps (or replaces, by id) a browser's push subscription of the owner's.
    func registerPushSubscription(_ subscription: StoredPushSubscription, owner: String) async throws
    func deletePushSubscription(id: String, owner: String) async throws -> Bool
    /// The owner's push subscriptions, oldest first.
    func pushSubscriptions(owner: String) async throws -> [StoredPushSubscription]
    func pushSubscription(id: String, owner: String) async throws -> StoredPushSubscription?

    // MARK: Reminders

    /// How many tasks' reminders are due and not yet collected (at most `limit`).
    func dueReminderCount(at time: Double, limit: Int) async throws -> Int
    /// Writes the reminders of tasks whose time has come into the outbox, a delivery per receiver (`pub` first when
    /// `publishing`, then each webhook, then each push subscription); a reminder later than `maxLateness` or whose toggle is off is marked and not
    /// written. Returns how many tasks it handled.
    func collectDueReminders(at time: Double, maxLateness: Double, publishing: Bool) async throws -> Int
    /// Claims pending deliveries whose time has come, oldest first: each one's next attempt moves to `time + lease`,
    /// so that no other dispatcher (another replica's) takes it before the claimer marks it or the lease ends.
    func claimDueDeliveries(at time: Double, lease: Double, limit: Int) async throws -> [DueDelivery]
    /// Whether a task of `kind` of the plant reminds its owner, as the preferences stand now.
    func reminds(owner: String, plantID: String, kind: CareTaskKind) async throws -> Bool
    /// A webhook's URL and secret.
    func webhook(id: String, owner: String) async throws -> (url: String, secret: String)?
    func markDelivery(_ delivery: DueDelivery, state: DeliveryState, attempts: Int, next: Double, error: String) async throws
}

/// A browser's Web Push subscription as stored: where its push service takes messages for it, and the keys only
/// it can decrypt them with.
public struct StoredPushSubscription: Sendable, Equatable {
    public var id: String
    public var endpoint: String
    /// The browser's P-256 public key, uncompressed (65 bytes).
    public var p256dh: Data
    /// Its auth secret (16 bytes).
    public var auth: Data
    public var createdAt: Double
    /// The browser's language as it said when subscribing ("es", "en-GB"; "" when it did not): the notifications'
    /// words are in it when PlantGuide has it (``ReminderWords``), else in English.
    public var language: String

    public init(id: String, endpoint: String, p256dh: Data, auth: Data, createdAt: Double, language: String = "") {
        self.id = id
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.createdAt = createdAt
        self.language = language
    }
}

/// What a task list asks for: the view, types and plant.
public struct TaskQuery: Sendable {
    public var view: Plantguide_Scheduling_V1_ListTasksRequest.View = .unspecified
    /// Day numbers of a range view.
    public var range: ClosedRange<Int>?
    public var types: [Int] = []
    public var plantID = ""
    public var limit = 200
}

/// A delivery whose time has come: which reminder, to whom, how often tried, and the reminder's message.
public struct DueDelivery: Sendable {
    public var owner: String
    public var reminderID: String
    /// The receiver as stored (``DeliveryReceiver/stored``): the row's key.
    public var receiver: String
    public var attempts: Int
    public var message: Data

    /// Where it goes; nil for a receiver no version of PlantGuide wrote.
    public var destination: DeliveryReceiver? { DeliveryReceiver(stored: receiver) }
}
