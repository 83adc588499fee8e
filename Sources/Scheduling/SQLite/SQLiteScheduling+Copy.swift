import Foundation
import GRDB

/// A SQLite deployment's rows, read for a copy into PostgreSQL.
extension SQLiteScheduling: SchedulingCopySource {
    public func owners() async throws -> [String] {
        try await writer.read { db in
            try String.fetchAll(db, sql: """
                SELECT ownerID FROM preferences UNION SELECT ownerID FROM schedule UNION SELECT ownerID FROM task
                UNION SELECT ownerID FROM webhook UNION SELECT ownerID FROM pushSubscription UNION SELECT ownerID FROM reminder
                """)
        }
    }

    public func everything(of owner: String) async throws -> SchedulingOwnerRecords {
        try await writer.read { db in
            var records = SchedulingOwnerRecords(owner: owner)
            records.preferences = try Data.fetchOne(db, sql: "SELECT message FROM preferences WHERE ownerID = ?", arguments: [owner])
            records.schedules = try Row.fetchAll(db, sql: "SELECT plantID, message FROM schedule WHERE ownerID = ?", arguments: [owner])
                .map { ($0["plantID"], $0["message"]) }
            records.tasks = try Row.fetchAll(db, sql: "SELECT * FROM task WHERE ownerID = ?", arguments: [owner]).map { row in
                .init(id: row["id"], plantID: row["plantID"], kind: row["kind"], state: row["state"], dueDay: row["dueDay"],
                      remindAt: row["remindAt"], completedAt: row["completedAt"], snoozedUntilDay: row["snoozedUntilDay"],
                      recurring: row["recurring"], note: row["note"], remindedAt: row["remindedAt"])
            }
            records.webhooks = try Row.fetchAll(db, sql: "SELECT id, url, secret FROM webhook WHERE ownerID = ?", arguments: [owner])
                .map { ($0["id"], $0["url"], $0["secret"]) }
            records.pushSubscriptions = try Row.fetchAll(db, sql: "SELECT * FROM pushSubscription WHERE ownerID = ?", arguments: [owner])
                .map(Self.pushSubscription)
            records.reminders = try Row.fetchAll(db, sql: "SELECT id, taskID, message, createdAt FROM reminder WHERE ownerID = ?", arguments: [owner])
                .map { ($0["id"], $0["taskID"], $0["message"], $0["createdAt"]) }
            records.deliveries = try Row.fetchAll(db, sql: """
                SELECT delivery.* FROM reminder JOIN delivery ON delivery.reminderID = reminder.id WHERE reminder.ownerID = ?
                """, arguments: [owner]).map { row in
                .init(reminderID: row["reminderID"], receiver: row["receiver"], state: row["state"], attempts: row["attempts"],
                      nextAttemptAt: row["nextAttemptAt"], lastError: row["lastError"])
            }
            return records
        }
    }
}
