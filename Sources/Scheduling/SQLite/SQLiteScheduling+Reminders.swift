import Foundation
import GRDB
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPCCore

/// The reminder outbox in SQLite: one writer, so collecting and delivering need no leases.
extension SQLiteScheduling {
    /// The tasks whose reminder time has come and whose reminder is not written yet (served by a partial index).
    static let dueTasks = """
        SELECT * FROM task WHERE remindedAt IS NULL AND remindAt >= 0 AND remindAt <= ? AND state IN (1, 3) LIMIT ?
        """

    public func dueReminderCount(at time: Double, limit: Int) async throws -> Int {
        try await writer.read { db in try Row.fetchAll(db, sql: Self.dueTasks, arguments: [time, limit]).count }
    }

    public func collectDueReminders(at time: Double, maxLateness: Double, publishing: Bool) async throws -> Int {
        try await writer.write { db in
            let rows = try Row.fetchAll(db, sql: Self.dueTasks, arguments: [time, 1_000])
            for row in rows {
                let owner: String = row["ownerID"]
                let task = TaskRows.task(row)
                let remindAt: Double = row["remindAt"]
                // Toggles as they stand now: a type or plant turned off since planning (or a snoozed or one-off
                // task of such a type) reminds no one. Nor does a reminder too late to be useful.
                guard remindAt >= time - maxLateness, let kind = TaskRows.kind(task.type.rawValue),
                      SchedulingStore.remindsPlant(task.plantID, kind: kind, try Self.preferences(db, owner: owner)) else {
                    try db.execute(sql: "UPDATE task SET remindedAt = ? WHERE ownerID = ? AND id = ?", arguments: [time, owner, task.id])
                    continue
                }
                let name = try Data.fetchOne(db, sql: "SELECT message FROM schedule WHERE ownerID = ? AND plantID = ?", arguments: [owner, task.plantID])
                    .map { try Schedule(serializedBytes: $0).plantName } ?? task.plantID
                let reminder = ReminderDispatcher.reminder(task, owner: owner, plantName: name, remindAt: remindAt)
                try db.execute(sql: "INSERT OR IGNORE INTO reminder VALUES (?, ?, ?, ?, ?)",
                               arguments: [reminder.id, owner, task.id, try reminder.serializedData(), time])
                var receivers = try String.fetchAll(db, sql: "SELECT id FROM webhook WHERE ownerID = ?", arguments: [owner])
                    .map { DeliveryReceiver.webhook(id: $0) }
                    + String.fetchAll(db, sql: "SELECT id FROM pushSubscription WHERE ownerID = ? ORDER BY id", arguments: [owner])
                    .map { DeliveryReceiver.push(subscriptionID: $0) }
                if publishing { receivers.insert(.stream, at: 0) }
                for receiver in receivers {
                    try db.execute(sql: "INSERT OR IGNORE INTO delivery (reminderID, receiver, nextAttemptAt) VALUES (?, ?, ?)",
                                   arguments: [reminder.id, receiver.stored, time])
                }
                try db.execute(sql: "UPDATE task SET remindedAt = ? WHERE ownerID = ? AND id = ?", arguments: [time, owner, task.id])
            }
            return rows.count
        }
    }

    public func claimDueDeliveries(at time: Double, lease: Double, limit: Int) async throws -> [DueDelivery] {
        try await writer.write { db in
            let due = try Row.fetchAll(db, sql: """
                SELECT delivery.reminderID, delivery.receiver, delivery.attempts, reminder.ownerID, reminder.message
                FROM delivery JOIN reminder ON reminder.id = delivery.reminderID
                WHERE delivery.state = 0 AND delivery.nextAttemptAt <= ? ORDER BY delivery.nextAttemptAt LIMIT ?
                """, arguments: [time, limit]).map { row in
                DueDelivery(owner: row["ownerID"], reminderID: row["reminderID"], receiver: row["receiver"], attempts: row["attempts"],
                            message: row["message"])
            }
            for delivery in due {
                try db.execute(sql: "UPDATE delivery SET nextAttemptAt = ? WHERE reminderID = ? AND receiver = ?",
                               arguments: [time + lease, delivery.reminderID, delivery.receiver])
            }
            return due
        }
    }

    public func reminds(owner: String, plantID: String, kind: CareTaskKind) async throws -> Bool {
        try await writer.read { db in SchedulingStore.remindsPlant(plantID, kind: kind, try Self.preferences(db, owner: owner)) }
    }

    public func webhook(id: String, owner: String) async throws -> (url: String, secret: String)? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT url, secret FROM webhook WHERE ownerID = ? AND id = ?", arguments: [owner, id])
                .map { (url: $0["url"] as String, secret: $0["secret"] as String) }
        }
    }

    public func markDelivery(_ delivery: DueDelivery, state: DeliveryState, attempts: Int, next: Double, error: String) async throws {
        try await writer.write { db in
            try db.execute(sql: """
                UPDATE delivery SET state = ?, attempts = ?, nextAttemptAt = ?, lastError = ? WHERE reminderID = ? AND receiver = ?
                """, arguments: [state.rawValue, attempts, next, error, delivery.reminderID, delivery.receiver])
        }
    }
}
