import Foundation
import Logging
import PlantGuideCore
import PlantGuideHTTP
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideStorage
import PlantGuideWebPush

/// Configuration of plantguide-scheduling.
public struct SchedulingConfiguration: Sendable {
    /// Holds `scheduling.sqlite` when scheduling is in SQLite.
    public var dataDirectory: URL
    /// The current time (tests move it).
    public var now: @Sendable () -> Date = { Date() }
    /// Web Push: the VAPID key reminders to browsers are signed with; nil turns Web Push off.
    public var vapid: VAPIDKey?
    /// Tests only: webhooks and push services on loopback addresses (over plain http there too). Private
    /// addresses stay refused.
    public var allowLoopbackReceivers = false
    /// The web app's origin as browsers reach it (the gateway's `--public-origin`): where a Web Push notification
    /// leads when a browser shows it by itself (Declarative Web Push's `navigate`). Nil: the payload names no page.
    public var appOrigin: String?
    /// The addresses of a webhook's or push service's host, checked when it is registered (``ReceiverCheck``):
    /// the system's resolver; tests give names of their own.
    public var resolveHost: @Sendable (String) async throws -> [String] = HostResolver.addresses(of:)

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }
}

/// The RPC methods of plantguide-scheduling (see `Protos/plantguide/scheduling/v1/scheduling.proto`). Every method
/// reads the caller from the "plantguide-user-id" metadata (UNAUTHENTICATED without it).
///
/// Reminders are delivered by the ``ReminderDispatcher`` that `dispatcher` returns, which the executable runs.
public struct SchedulingRPCService: RPCService {
    public let store: SchedulingStore
    private let records: any SchedulingRecords
    private let database: PostgresStorage?
    private let configuration: SchedulingConfiguration

    /// Opens (creating and migrating) the SQLite database in the data folder.
    public init(configuration: SchedulingConfiguration, logger: Logger) throws {
        self.init(configuration: configuration, records: try SQLiteScheduling.open(folder: configuration.dataDirectory, logger: logger))
    }

    /// Serves the schedules that `records` keep; `database`, when they are in PostgreSQL, tells health whether it
    /// answers.
    public init(configuration: SchedulingConfiguration, records: any SchedulingRecords, database: PostgresStorage? = nil) {
        self.records = records
        self.database = database
        store = SchedulingStore(records: records, now: configuration.now)
        self.configuration = configuration
    }

    public var isReady: Bool { database?.isReachable ?? true }

    /// The dispatcher of this service's reminders, publishing on `publisher` (nil: webhooks and Web Push only).
    public func dispatcher(publisher: Publisher?, http: any HTTPClient = CurlHTTPClient()) -> ReminderDispatcher {
        ReminderDispatcher(records: records, publisher: publisher, http: http, push: push,
                           allowLoopbackReceivers: configuration.allowLoopbackReceivers, now: configuration.now)
    }

    /// Web Push, when a VAPID key is configured.
    private var push: WebPushSender? {
        configuration.vapid.map { WebPushSender(key: $0, allowLoopback: configuration.allowLoopbackReceivers, appOrigin: configuration.appOrigin) }
    }

    /// Its handlers only await (the database's queue or pool, other services); Web Push's encryption and
    /// webhooks run on their own tasks. So they run where the calls arrive, on the RPC I/O thread.
    public var handlerExecution: RPCHandlerExecution? { .ioThread }

    public func registerMethods(with router: inout RPCRouter) {
        typealias Methods = Plantguide_Scheduling_V1_SchedulingService
        let store = self.store

        router.register(Methods.putSchedule) { request, context in
            let (schedule, tasks) = try await store.putSchedule(request.schedule, owner: try context.requireUserID())
            return .with { $0.schedule = schedule; $0.tasks = tasks }
        }
        // Reads of one schedule or two counts that only await the database: answered on the RPC I/O thread.
        // The schedule goes out as it is stored, never decoded: its care data was most of GetSchedule's CPU.
        router.registerEncoded(Methods.getSchedule, runsOn: .ioThread) { request, context in
            let found = try await store.encodedSchedule(plantID: request.plantID, owner: try context.requireUserID(),
                                                        includeOpenTasks: request.includeOpenTasks)
            // Field 1 of GetScheduleResponse (scheduling.proto) is `schedule`.
            return try EncodedMessage(.with { $0.openTasks = found.openTasks }, appending: [(number: 1, encoded: found.schedule)])
        }
        router.register(Methods.deletePlantSchedules) { request, context in
            let count = try await store.deleteSchedules(plantID: request.plantID, owner: try context.requireUserID())
            return .with { $0.tasksDeleted = UInt32(count) }
        }
        router.register(Methods.listTasks) { request, context in
            let (tasks, days) = try await store.list(request, owner: try context.requireUserID())
            return .with {
                $0.tasks = tasks
                if request.view == .upcoming || request.view == .range {
                    $0.days = days.map { day in .with { $0.date = day.0; $0.tasks = day.1 } }
                }
            }
        }
        router.register(Methods.getCalendarCounts) { request, context in
            let counts = try await store.counts(from: request.fromDate, to: request.toDate, owner: try context.requireUserID())
            return .with { $0.counts = counts }
        }
        router.register(Methods.getBadgeCount, runsOn: .ioThread) { _, context in
            let (overdue, today) = try await store.badge(owner: try context.requireUserID())
            return .with { $0.overdue = UInt32(overdue); $0.today = UInt32(today); $0.total = UInt32(overdue + today) }
        }
        router.register(Methods.completeTasks) { request, context in
            let at = request.hasCompletedAt ? try WireTimestamp.date(request.completedAt, field: "completed_at") : nil
            let (completed, planned) = try await store.complete(ids: request.taskIds, at: at, owner: try context.requireUserID())
            return .with { $0.completed = completed; $0.planned = planned }
        }
        router.register(Methods.snoozeTask) { request, context in
            var hours: UInt32?
            var date: String?
            switch request.until {
            case .hours(let value)?: hours = value
            case .date(let value)?: date = value
            case nil: break
            }
            let task = try await store.snooze(id: request.taskID, hours: hours, until: date, owner: try context.requireUserID())
            return .with { $0.task = task }
        }
        router.register(Methods.skipTask) { request, context in
            let task = try await store.skip(id: request.taskID, owner: try context.requireUserID())
            return .with { $0.task = task }
        }
        router.register(Methods.reopenTask) { request, context in
            let task = try await store.reopen(id: request.taskID, owner: try context.requireUserID())
            return .with { $0.task = task }
        }
        router.register(Methods.addTask) { request, context in
            let task = try await store.add(request.task, owner: try context.requireUserID())
            return .with { $0.task = task }
        }
        router.register(Methods.recordCareEvent) { request, context in
            let at = request.hasOccurredAt ? try WireTimestamp.date(request.occurredAt, field: "occurred_at") : nil
            let task = try await store.recordCareEvent(plantID: request.plantID, type: request.type, at: at,
                                                       owner: try context.requireUserID())
            return .with { if let task { $0.completed = task } }
        }
        router.register(Methods.getPreferences) { _, context in
            let preferences = try await store.preferences(owner: try context.requireUserID())
            return .with { $0.preferences = preferences }
        }
        router.register(Methods.putPreferences) { request, context in
            let (preferences, replanned) = try await store.putPreferences(
                request.preferences, mask: request.updateMask, owner: try context.requireUserID())
            return .with { $0.preferences = preferences; $0.remindersReplanned = UInt32(replanned) }
        }
        let receivers = ReceiverCheck(allowLoopback: configuration.allowLoopbackReceivers, resolve: configuration.resolveHost)
        router.register(Methods.registerWebhook) { request, context in
            let owner = try context.requireUserID()
            try await receivers.check(request.url, field: "url")
            try await store.registerWebhook(id: request.id, url: request.url, secret: request.secret, owner: owner)
            return .with { $0.id = request.id }
        }
        router.register(Methods.deleteWebhook) { request, context in
            let deleted = try await store.deleteWebhook(id: request.id, owner: try context.requireUserID())
            return .with { $0.deleted = deleted }
        }
        let push = self.push
        let now = configuration.now
        @Sendable func requirePush() throws -> WebPushSender {
            guard let push else {
                throw RPCError(.failedPrecondition, "Web Push is off on this server: the operator gives plantguide-scheduling a VAPID key "
                               + "(--vapid-private-key-file, made by Deploy/make-keys)")
            }
            return push
        }
        router.register(Methods.registerPushSubscription) { request, context in
            let owner = try context.requireUserID()
            let subscription = try requirePush().subscription(endpoint: request.endpoint, p256dh: request.p256Dh, auth: request.auth,
                                                              language: request.language, at: now().timeIntervalSince1970)
            try await receivers.check(request.endpoint, field: "endpoint")
            try await store.registerPushSubscription(subscription, owner: owner)
            return .with { $0.subscriptionID = subscription.id }
        }
        router.register(Methods.deletePushSubscription) { request, context in
            let deleted = try await store.deletePushSubscription(id: request.subscriptionID, owner: try context.requireUserID())
            return .with { $0.deleted = deleted }
        }
        router.register(Methods.listPushSubscriptions) { _, context in
            let subscriptions = try await store.pushSubscriptions(owner: try context.requireUserID())
            return .with {
                $0.subscriptions = subscriptions.map { stored in
                    .with {
                        $0.subscriptionID = stored.id
                        $0.pushService = URL(string: stored.endpoint)?.host ?? ""
                        $0.createdAt = WireTimestamp.clamped(stored.createdAt)
                    }
                }
            }
        }
        router.register(Methods.getPushKey) { _, _ in
            let key = try requirePush().key.publicKeyBase64URL
            return .with { $0.publicKey = key }
        }
        router.register(Methods.getCalendar) { request, context in
            guard request.days <= 366 else { throw RPCError.invalidArgument("days", .outOfRange, "days must be at most 366") }
            let feed = try await store.calendarFeed(days: request.days == 0 ? 60 : Int(request.days), ifVersion: request.ifVersion,
                                                    owner: try context.requireUserID())
            return .with {
                $0.ics = feed.ics ?? ""
                $0.version = feed.version
                $0.notModified = feed.notModified
            }
        }
        router.register(Methods.listSchedules) { request, context in
            let (schedules, next) = try await store.schedules(
                pageSize: Int(request.pageSize), pageToken: request.pageToken, owner: try context.requireUserID())
            let named = !request.namesOnly ? schedules : schedules.map { schedule in
                Plantguide_Scheduling_V1_Schedule.with {
                    $0.plantID = schedule.plantID
                    $0.plantName = schedule.plantName
                }
            }
            return .with { $0.schedules = named; $0.nextPageToken = next }
        }
        router.register(Methods.renamePlant) { request, context in
            let schedule = try await store.rename(plantID: request.plantID, to: request.plantName, owner: try context.requireUserID())
            return .with { $0.schedule = schedule }
        }
        router.register(Methods.getPlantTaskCounts) { request, context in
            let counts = try await store.taskCounts(plantIDs: request.plantIds, owner: try context.requireUserID())
            return .with { $0.counts = counts }
        }
        router.register(Methods.deleteUserData) { _, context in
            let (schedules, tasks) = try await store.deleteAll(owner: try context.requireUserID())
            return .with { $0.schedulesDeleted = UInt32(clamping: schedules); $0.tasksDeleted = UInt32(clamping: tasks) }
        }
    }

}
