import Foundation
import PlantGuideHTTP
import PlantGuideProtos
import PlantGuideRPC
import SwiftProtobuf
import Synchronization

/// Turns due reminders into outbox rows and delivers them: to the PUB stream (topic: ``ReminderTopic``), to
/// every webhook of the user (a signed JSON POST) and to every browser subscribed by Web Push (``WebPushSender``),
/// each receiver with its own delivery row.
///
/// Webhooks and push services are URLs users gave: they may only be public addresses (checked when they are
/// registered, ``ReceiverCheck``, and on every connection by the outbound guard,
/// ``PlantGuideHTTP/OutboundAddresses``), loopback too when `allowLoopbackReceivers` (tests). A delivery the guard
/// refuses (a name that now resolves to a private address) is dead at once, not retried. A push service that
/// answers 404 or 410 has lost the browser's subscription, which is removed; 429 and 5xx are retried, after the
/// service's Retry-After when it gives one.
///
/// Collecting writes the reminder, one delivery row per receiver, and the task's `remindedAt` in one transaction,
/// so a reminder is never lost nor made twice. A delivery is marked done only after its receiver took it: after a
/// crash, the ones in flight are sent again, under the same reminder id, which receivers deduplicate on. Failed
/// deliveries are retried with exponential back-off; after `maxAttempts` they are dead-lettered.
///
/// Deliveries go out concurrently, up to ``maxInFlight`` at once, each on its own: a receiver that answers slowly
/// or not at all holds up only its own deliveries, never the others'. A dispatcher claims only as many as it has
/// room for, and starts each at once; one it could no longer finish within its claim is given back at once rather
/// than left to wait for the claim to end.
///
/// Late reminders: one whose time passed more than ``maxLateness`` ago (the service was down, or the schedule was
/// made after it) is not sent; the task stays open and shows as overdue in the app and the calendar. So a service
/// back after a day's outage, or a schedule made with history, never sends a burst of stale reminders.
public final class ReminderDispatcher: Sendable {
    public typealias Reminder = Plantguide_Scheduling_V1_Reminder

    let records: any SchedulingRecords
    let publisher: Publisher?
    let http: any HTTPClient
    /// Web Push, when the service has a VAPID key.
    let push: WebPushSender?
    /// Whether webhooks may be on loopback addresses (tests); never private ones.
    let allowLoopbackReceivers: Bool
    let now: @Sendable () -> Date
    /// Default 8.
    public let maxAttempts: Int
    /// First retry after this; doubling up to an hour. Default 2 s.
    public let initialBackoff: TimeInterval
    /// How late a reminder may still be sent. Default 12 hours.
    public let maxLateness: TimeInterval
    /// How many deliveries are in flight at most (each a webhook or push request on a thread of its own). Default 256.
    public let maxInFlight: Int

    public init(records: any SchedulingRecords, publisher: Publisher?, http: any HTTPClient = CurlHTTPClient(),
                push: WebPushSender? = nil, allowLoopbackReceivers: Bool = false,
                maxAttempts: Int = 8, initialBackoff: TimeInterval = 2, maxLateness: TimeInterval = 12 * 3_600,
                maxInFlight: Int = 256, now: @escaping @Sendable () -> Date = { Date() }) {
        self.records = records
        self.publisher = publisher
        self.http = http
        self.push = push
        self.allowLoopbackReceivers = allowLoopbackReceivers
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
        self.maxLateness = maxLateness
        self.maxInFlight = max(1, maxInFlight)
        self.now = now
    }

    /// Collects due reminders and makes every delivery that is due; returns how many of each.
    @discardableResult
    public func runOnce() async throws -> (collected: Int, delivered: Int) {
        (try await collectDue(), try await deliverDue())
    }

    /// Collects due reminders every `interval` and keeps their deliveries going until the task is cancelled
    /// (then it lets those in flight finish). Collecting runs on its own, so deliveries start as soon as the first
    /// reminders of a burst are written; and the dispatcher does not wait for a round's deliveries before the
    /// next: whenever it has room (fewer than ``maxInFlight`` in flight) it claims that many more and starts them,
    /// so a burst goes out as fast as receivers take it, and a slow receiver delays only itself. Once per UTC day
    /// it also moves every schedule's horizon forward (`store.extendHorizonsOncePerDay()`: at start unless a
    /// replica did today).
    /// - Parameter extendedDay: the UTC day (days since 1970) whose extension was already done before the
    ///   service took calls, so that the first round does not plan again the schedules those calls made.
    public func run(every interval: Duration, store: SchedulingStore, horizonsExtendedOn extendedDay: Int? = nil) async {
        let inFlight = InFlight()
        await withDiscardingTaskGroup { group in
            group.addTask {
                var plannedDay = extendedDay
                while !Task.isCancelled {
                    let day = Int(self.now().timeIntervalSince1970 / 86_400)
                    if plannedDay != day, (try? await store.extendHorizonsOncePerDay()) != nil { plannedDay = day }
                    // A full round (a burst larger than one round takes) goes on at once.
                    let collected = (try? await self.collectDue()) ?? 0
                    if collected < Self.collectLimit { try? await Task.sleep(for: interval) }
                }
            }
            while !Task.isCancelled {
                let room = maxInFlight - inFlight.count
                var claimedAll = false
                if room > 0, let claim = try? await claimDue(limit: room) {
                    claimedAll = claim.deliveries.count < room
                    for delivery in claim.deliveries {
                        inFlight.add(1)
                        group.addTask {
                            _ = try? await self.handle(delivery, claimedAt: claim.time)
                            inFlight.add(-1)
                        }
                    }
                }
                // Nothing more due: look again after a short while (collecting may write more at any moment).
                // Full: look again as soon as deliveries have finished.
                try? await Task.sleep(for: claimedAll ? min(interval, Self.claimInterval) : .milliseconds(20))
            }
        }
    }

    /// How often a dispatcher with room looks for deliveries that became due: the delay a reminder may wait
    /// between being written and going out (a retry's, or one another replica wrote).
    static let claimInterval: Duration = .milliseconds(200)

    /// The number of deliveries in flight in ``run(every:store:)``.
    private final class InFlight: Sendable {
        private let value = Atomic<Int>(0)
        var count: Int { value.load(ordering: .relaxed) }
        func add(_ delta: Int) { value.add(delta, ordering: .relaxed) }
    }

    /// At most this many tasks' reminders are collected in one round (see ``SchedulingRecords/collectDueReminders``).
    static let collectLimit = 1_000

    /// How many reminders are due and not yet collected (at most `limit`): for monitoring, and the benchmark.
    public func dueCount(limit: Int = 1_000) async throws -> Int {
        try await records.dueReminderCount(at: now().timeIntervalSince1970, limit: limit)
    }

    /// Writes the reminders of tasks whose reminder time has come into the outbox.
    func collectDue() async throws -> Int {
        try await records.collectDueReminders(at: now().timeIntervalSince1970, maxLateness: maxLateness, publishing: publisher != nil)
    }

    /// The reminder of `task` due at `remindAt`, under its stable id (owner, task and time).
    static func reminder(_ task: Plantguide_Scheduling_V1_CareTask, owner: String, plantName: String, remindAt: Double) -> Reminder {
        Reminder.with {
            $0.id = "r:\(owner):\(task.id):\(Int64(min(max(remindAt, 0), Double(WireTimestamp.maximumSeconds))))"
            $0.userID = owner
            $0.task = task
            $0.plantName = plantName
            $0.dueAt = WireTimestamp.clamped(remindAt)
        }
    }

    /// How long a claim on due deliveries holds (see ``SchedulingRecords/claimDueDeliveries(at:lease:limit:)``): what
    /// a dispatcher that dies after claiming leaves to the others, at the latest this long after.
    public static let deliveryLease: TimeInterval = 15
    /// The longest one delivery takes: a webhook's timeout.
    static let deliveryTimeout: TimeInterval = 10

    /// Claims up to `limit` deliveries whose time has come, for ``deliveryLease``.
    private func claimDue(limit: Int) async throws -> (time: Double, deliveries: [DueDelivery]) {
        let time = now().timeIntervalSince1970
        return (time, try await records.claimDueDeliveries(at: time, lease: Self.deliveryLease, limit: limit))
    }

    /// Makes the deliveries whose time has come, all at once (up to ``maxInFlight`` claimed), and waits for them;
    /// returns how many went out. See ``run(every:store:)`` for the loop the service runs.
    func deliverDue() async throws -> Int {
        let claim = try await claimDue(limit: min(maxInFlight, 200))
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            for delivery in claim.deliveries {
                group.addTask { try await self.handle(delivery, claimedAt: claim.time) }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    /// Makes one claimed delivery and records what became of it; returns whether it went out. One that could still
    /// be in flight when its claim ends is given back at once (for this dispatcher's next round or another
    /// replica), so no delivery goes out from two dispatchers.
    private func handle(_ delivery: DueDelivery, claimedAt claimed: Double) async throws -> Bool {
        let attempts = delivery.attempts
        let start = now().timeIntervalSince1970
        guard start + Self.deliveryTimeout + 1 < claimed + Self.deliveryLease else {
            try await records.markDelivery(delivery, state: .pending, attempts: attempts, next: start, error: "")
            return false
        }
        // Decoded once for every step below; one that does not decode (or names a receiver no version wrote) is
        // not sent.
        guard let reminder = try? Reminder(serializedBytes: delivery.message), let receiver = delivery.destination else {
            try await records.markDelivery(delivery, state: .dead, attempts: attempts, next: start, error: "the reminder or its receiver is unreadable")
            return false
        }
        guard try await stillWanted(reminder, owner: delivery.owner) else {
            try await records.markDelivery(delivery, state: .cancelled, attempts: attempts, next: start,
                                           error: "reminders of this type or plant were turned off")
            return false
        }
        let outcome: Outcome
        do {
            outcome = try await deliver(reminder, message: delivery.message, to: receiver, owner: delivery.owner)
        } catch let error as HTTPClientError where error.code == .refusedAddress {
            outcome = .refused(error.message)
        } catch {
            outcome = .failed("\(error)", retryAfter: nil)
        }
        let time = now().timeIntervalSince1970
        switch outcome {
        case .delivered:
            try await records.markDelivery(delivery, state: .delivered, attempts: attempts + 1, next: time, error: "")
            return true
        case .receiverGone(let why):
            try await records.markDelivery(delivery, state: .cancelled, attempts: attempts + 1, next: time, error: why)
        case .refused(let why):
            try await records.markDelivery(delivery, state: .dead, attempts: attempts + 1, next: time, error: why)
        case .failed(let error, let retryAfter):
            let dead = attempts + 1 >= maxAttempts
            let wait = retryAfter.map { min(max($0, 1), 3_600) } ?? min(initialBackoff * pow(2, Double(attempts)), 3_600)
            try await records.markDelivery(delivery, state: dead ? .dead : .pending, attempts: attempts + 1, next: time + wait, error: error)
        }
        return false
    }

    /// Whether the reminder's type and plant still remind its owner (a retry to a failing webhook stops once
    /// they are turned off).
    private func stillWanted(_ reminder: Reminder, owner: String) async throws -> Bool {
        guard let kind = TaskRows.kind(reminder.task.type.rawValue) else { return false }
        return try await records.reminds(owner: owner, plantID: reminder.task.plantID, kind: kind)
    }

    /// What became of one delivery.
    private enum Outcome {
        case delivered
        /// The receiver is no more (a push subscription the service reports gone, now removed): not retried.
        case receiverGone(String)
        /// Retried with back-off, or after `retryAfter` seconds when the receiver said.
        case failed(String, retryAfter: Double?)
        /// The outbound guard refused the receiver's address (its name now resolves to a private one): dead at
        /// once, since every retry would be refused alike.
        case refused(String)
    }

    /// Sends `reminder` (`message`: its bytes, as the stream carries them) to `receiver`.
    private func deliver(_ reminder: Reminder, message: Data, to receiver: DeliveryReceiver, owner: String) async throws -> Outcome {
        switch receiver {
        case .stream:
            publisher?.publish(topic: ReminderTopic.topic(for: owner), payload: [UInt8](message))
            return .delivered
        case .push(let subscriptionID):
            return try await deliverPush(reminder, subscriptionID: subscriptionID, owner: owner)
        case .webhook(let id):
            try await deliverWebhook(reminder, hookID: id, owner: owner)
            return .delivered
        }
    }

    private func deliverPush(_ reminder: Reminder, subscriptionID: String, owner: String) async throws -> Outcome {
        guard let push else { return .failed("Web Push is off: the service has no VAPID key", retryAfter: 3_600) }
        guard let subscription = try await records.pushSubscription(id: subscriptionID, owner: owner) else {
            return .receiverGone("push subscription \(subscriptionID) was removed")
        }
        switch try await push.send(reminder, to: subscription, owner: owner, http: http, timeout: .seconds(Self.deliveryTimeout), now: now()) {
        case .delivered:
            return .delivered
        case .gone:
            _ = try await records.deletePushSubscription(id: subscriptionID, owner: owner)
            return .receiverGone("the push service no longer knows the subscription: removed")
        case .retry(let status, let retryAfter):
            return .failed("the push service answered \(status)", retryAfter: retryAfter)
        case .refused(let status):
            return .failed("the push service refused the message with \(status)", retryAfter: nil)
        }
    }

    private func deliverWebhook(_ reminder: Reminder, hookID: String, owner: String) async throws {
        guard let hook = try await records.webhook(id: hookID, owner: owner), let url = URL(string: hook.url) else {
            throw SchedulingError(.notFound, "webhook \(hookID) was removed")
        }
        let body = try reminder.jsonUTF8Data()
        let response = try await http.send(HTTPRequest(method: "POST", url: url, headers: [
            "Content-Type": "application/json",
            WebhookSignature.header: WebhookSignature.sign(body, secret: hook.secret),
            "X-PlantGuide-Reminder-Id": reminder.id,
        ], body: body, addresses: .receivers(allowLoopback: allowLoopbackReceivers)), timeout: .seconds(Self.deliveryTimeout))
        guard (200..<300).contains(response.status) else {
            throw SchedulingError(.failedPrecondition, "webhook \(hookID) answered \(response.status)")
        }
    }
}
