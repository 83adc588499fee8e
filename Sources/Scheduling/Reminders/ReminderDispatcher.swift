import Foundation
import GRDB
import PlantGuideHTTP
import PlantGuideProtos
import PlantGuideRPC
import SwiftProtobuf

/// Turns due reminders into outbox rows and delivers them: to the PUB stream (topic: ``ReminderTopic``) and to
/// every webhook of the user (a signed JSON POST), each receiver with its own delivery row.
///
/// Collecting writes the reminder, one delivery row per receiver, and the task's `remindedAt` in one transaction,
/// so a reminder is never lost nor made twice. A delivery is marked done only after its receiver took it: after a
/// crash, the ones in flight are sent again, under the same reminder id, which receivers deduplicate on. Failed
/// deliveries are retried with exponential back-off; after `maxAttempts` they are dead-lettered.
///
/// Late reminders: one whose time passed more than ``maxLateness`` ago (the service was down, or the schedule was
/// made after it) is not sent; the task stays open and shows as overdue in the app and the calendar. So a service
/// back after a day's outage, or a schedule made with history, never sends a burst of stale reminders.
public final class ReminderDispatcher: Sendable {
    public typealias Reminder = Plantguide_Scheduling_V1_Reminder

    let writer: any DatabaseWriter
    let publisher: Publisher?
    let http: any HTTPClient
    let now: @Sendable () -> Date
    /// Default 8.
    public let maxAttempts: Int
    /// First retry after this; doubling up to an hour. Default 2 s.
    public let initialBackoff: TimeInterval
    /// How late a reminder may still be sent. Default 12 hours.
    public let maxLateness: TimeInterval

    public init(writer: any DatabaseWriter, publisher: Publisher?, http: any HTTPClient = CurlHTTPClient(),
                maxAttempts: Int = 8, initialBackoff: TimeInterval = 2, maxLateness: TimeInterval = 12 * 3_600,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.writer = writer
        self.publisher = publisher
        self.http = http
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
        self.maxLateness = maxLateness
        self.now = now
    }

    /// Collects due reminders and makes every delivery that is due; returns how many of each.
    @discardableResult
    public func runOnce() async throws -> (collected: Int, delivered: Int) {
        (try await collectDue(), try await deliverDue())
    }

    /// Runs `runOnce` every `interval` until the task is cancelled; once per UTC day (and at start) it also moves
    /// every schedule's horizon forward with `store.extendHorizons()`.
    public func run(every interval: Duration, store: SchedulingStore) async {
        var plannedDay: Int?
        while !Task.isCancelled {
            let day = Int(now().timeIntervalSince1970 / 86_400)
            if plannedDay != day, (try? await store.extendHorizons()) != nil { plannedDay = day }
            _ = try? await runOnce()
            try? await Task.sleep(for: interval)
        }
    }

    /// The tasks whose reminder time has come and whose reminder is not written yet (served by a partial index).
    static let dueTasks = """
        SELECT * FROM task WHERE remindedAt IS NULL AND remindAt >= 0 AND remindAt <= ? AND state IN (1, 3) LIMIT ?
        """

    /// How many reminders are due and not yet collected (at most `limit`): for monitoring, and the benchmark.
    public func dueCount(limit: Int = 1_000) async throws -> Int {
        let time = now().timeIntervalSince1970
        return try await writer.read { db in try Row.fetchAll(db, sql: Self.dueTasks, arguments: [time, limit]).count }
    }

    /// Writes the reminders of tasks whose reminder time has come into the outbox.
    func collectDue() async throws -> Int {
        let time = now().timeIntervalSince1970
        let withPub = publisher != nil
        let maxLateness = self.maxLateness
        return try await writer.write { db in
            let rows = try Row.fetchAll(db, sql: Self.dueTasks, arguments: [time, 1_000])
            for row in rows {
                let owner: String = row["ownerID"]
                let task = TaskRows.task(row)
                let remindAt: Double = row["remindAt"]
                // Toggles as they stand now: a type or plant turned off since planning (or a snoozed or one-off
                // task of such a type) reminds no one. Nor does a reminder too late to be useful.
                guard remindAt >= time - maxLateness, let kind = TaskRows.kind(task.type.rawValue),
                      try SchedulingStore.reminds(db, owner: owner, plantID: task.plantID, kind: kind) else {
                    try db.execute(sql: "UPDATE task SET remindedAt = ? WHERE ownerID = ? AND id = ?", arguments: [time, owner, task.id])
                    continue
                }
                let id = "r:\(owner):\(task.id):\(Int64(min(max(remindAt, 0), Double(WireTimestamp.maximumSeconds))))"
                let name = try Data.fetchOne(db, sql: "SELECT message FROM schedule WHERE ownerID = ? AND plantID = ?", arguments: [owner, task.plantID])
                    .map { try Plantguide_Scheduling_V1_Schedule(serializedBytes: $0).plantName } ?? task.plantID
                let reminder = Reminder.with {
                    $0.id = id
                    $0.userID = owner
                    $0.task = task
                    $0.plantName = name
                    $0.dueAt = WireTimestamp.clamped(remindAt)
                }
                try db.execute(sql: "INSERT OR IGNORE INTO reminder VALUES (?, ?, ?, ?, ?)",
                               arguments: [id, owner, task.id, try reminder.serializedData(), time])
                var receivers = try String.fetchAll(db, sql: "SELECT 'webhook:' || id FROM webhook WHERE ownerID = ?", arguments: [owner])
                if withPub { receivers.insert("pub", at: 0) }
                for receiver in receivers {
                    try db.execute(sql: "INSERT OR IGNORE INTO delivery (reminderID, receiver, nextAttemptAt) VALUES (?, ?, ?)",
                                   arguments: [id, receiver, time])
                }
                try db.execute(sql: "UPDATE task SET remindedAt = ? WHERE ownerID = ? AND id = ?", arguments: [time, owner, task.id])
            }
            return rows.count
        }
    }

    /// Makes the deliveries whose time has come, one after another.
    func deliverDue() async throws -> Int {
        let time = now().timeIntervalSince1970
        let due = try await writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT delivery.reminderID, delivery.receiver, delivery.attempts, reminder.ownerID, reminder.message
                FROM delivery JOIN reminder ON reminder.id = delivery.reminderID
                WHERE delivery.state = 0 AND delivery.nextAttemptAt <= ? ORDER BY delivery.nextAttemptAt LIMIT 200
                """, arguments: [time]).map { row in
                (reminderID: row["reminderID"] as String, receiver: row["receiver"] as String, attempts: row["attempts"] as Int,
                 owner: row["ownerID"] as String, message: row["message"] as Data)
            }
        }
        var delivered = 0
        for (reminderID, receiver, attempts, owner, message) in due {
            guard try await stillWanted(message, owner: owner) else {
                try await mark(reminderID, receiver, state: Self.cancelled, attempts: attempts, next: time,
                               error: "reminders of this type or plant were turned off")
                continue
            }
            do {
                try await deliver(message, to: receiver, owner: owner, reminderID: reminderID)
                try await mark(reminderID, receiver, state: 1, attempts: attempts + 1, next: time, error: "")
                delivered += 1
            } catch {
                let dead = attempts + 1 >= maxAttempts
                let wait = min(initialBackoff * pow(2, Double(attempts)), 3_600)
                try await mark(reminderID, receiver, state: dead ? 2 : 0, attempts: attempts + 1, next: time + wait, error: "\(error)")
            }
        }
        return delivered
    }

    /// Delivery states: 0 pending, 1 delivered, 2 dead (out of attempts), 3 cancelled (its toggle was turned off).
    static let cancelled = 3

    /// Whether the reminder's type and plant still remind its owner (a retry to a failing webhook stops once
    /// they are turned off).
    private func stillWanted(_ message: Data, owner: String) async throws -> Bool {
        guard let reminder = try? Reminder(serializedBytes: message), let kind = TaskRows.kind(reminder.task.type.rawValue) else {
            return false
        }
        return try await writer.read { db in
            try SchedulingStore.reminds(db, owner: owner, plantID: reminder.task.plantID, kind: kind)
        }
    }

    private func deliver(_ message: Data, to receiver: String, owner: String, reminderID: String) async throws {
        if receiver == "pub" {
            publisher?.publish(topic: ReminderTopic.topic(for: owner), payload: [UInt8](message))
            return
        }
        let hookID = String(receiver.dropFirst("webhook:".count))
        guard let hook = try await writer.read({ db in
            try Row.fetchOne(db, sql: "SELECT url, secret FROM webhook WHERE ownerID = ? AND id = ?", arguments: [owner, hookID])
                .map { (url: $0["url"] as String, secret: $0["secret"] as String) }
        }), let url = URL(string: hook.url) else {
            throw SchedulingError(.notFound, "webhook \(hookID) was removed")
        }
        let body = try Reminder(serializedBytes: message).jsonUTF8Data()
        let response = try await http.send(HTTPRequest(method: "POST", url: url, headers: [
            "Content-Type": "application/json",
            WebhookSignature.header: WebhookSignature.sign(body, secret: hook.secret),
            "X-PlantGuide-Reminder-Id": reminderID,
        ], body: body), timeout: .seconds(10))
        guard (200..<300).contains(response.status) else {
            throw SchedulingError(.failedPrecondition, "webhook \(hookID) answered \(response.status)")
        }
    }

    private func mark(_ reminderID: String, _ receiver: String, state: Int, attempts: Int, next: Double, error: String) async throws {
        try await writer.write { db in
            try db.execute(sql: """
                UPDATE delivery SET state = ?, attempts = ?, nextAttemptAt = ?, lastError = ? WHERE reminderID = ? AND receiver = ?
                """, arguments: [state, attempts, next, error, reminderID, receiver])
        }
    }
}
