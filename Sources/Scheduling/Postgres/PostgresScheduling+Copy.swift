import Foundation
import PlantGuideStorage
import PostgresNIO

/// What a copy writes into PostgreSQL, and reads back to compare.
extension PostgresScheduling: SchedulingCopySource {
    public func owners() async throws -> [String] {
        try await database.read { session in
            try await session.all("""
                SELECT owner_id FROM preferences UNION SELECT owner_id FROM schedule UNION SELECT owner_id FROM task
                UNION SELECT owner_id FROM webhook UNION SELECT owner_id FROM push_subscription UNION SELECT owner_id FROM reminder
                """, as: String.self)
        }
    }

    public func everything(of owner: String) async throws -> SchedulingOwnerRecords {
        try await database.read { session in
            var records = SchedulingOwnerRecords(owner: owner)
            let preferences: [Data] = try await session.all("SELECT message FROM preferences WHERE owner_id = \(owner)", as: Data.self)
            records.preferences = preferences.first
            records.schedules = try await session.all("SELECT plant_id, message FROM schedule WHERE owner_id = \(owner)", as: (String, Data).self)
                .map { (plantID: $0.0, message: $0.1) }
            let types = (String, String, Int, Int, Int, Double, Double?, Int?, Bool, String, Double?).self
            records.tasks = try await session.all("""
                SELECT id, plant_id, kind, state, due_day, remind_at, completed_at, snoozed_until_day, recurring, note, reminded_at
                FROM task WHERE owner_id = \(owner)
                """, as: types).map {
                .init(id: $0.0, plantID: $0.1, kind: $0.2, state: $0.3, dueDay: $0.4, remindAt: $0.5, completedAt: $0.6, snoozedUntilDay: $0.7,
                      recurring: $0.8, note: $0.9, remindedAt: $0.10)
            }
            records.webhooks = try await session.all("SELECT id, url, secret FROM webhook WHERE owner_id = \(owner)", as: (String, String, String).self)
                .map { (id: $0.0, url: $0.1, secret: $0.2) }
            records.pushSubscriptions = try await Self.pushSubscriptions(session, owner: owner)
            records.reminders = try await session.all("""
                SELECT id, task_id, message, created_at FROM reminder WHERE owner_id = \(owner)
                """, as: (String, String, Data, Double).self).map { (id: $0.0, taskID: $0.1, message: $0.2, createdAt: $0.3) }
            records.deliveries = try await session.all("""
                SELECT reminder_id, receiver, state, attempts, next_attempt_at, last_error FROM delivery WHERE owner_id = \(owner)
                """, as: (String, String, Int, Int, Double, String).self).map {
                .init(reminderID: $0.0, receiver: $0.1, state: $0.2, attempts: $0.3, nextAttemptAt: $0.4, lastError: $0.5)
            }
            return records
        }
    }

    /// Writes `records` in one transaction under the user's lock, each row replacing the row of the same key:
    /// running a copy again converges on the source.
    public func replace(_ records: SchedulingOwnerRecords) async throws {
        let owner = records.owner
        try await write(owner: owner) { session in
            if let preferences = records.preferences {
                try await session.query("""
                    INSERT INTO preferences (owner_id, message) VALUES (\(owner), \(preferences))
                    ON CONFLICT (owner_id) DO UPDATE SET message = excluded.message
                    """)
            }
            for (plantID, message) in records.schedules {
                try await session.query("""
                    INSERT INTO schedule (owner_id, plant_id, message) VALUES (\(owner), \(plantID), \(message))
                    ON CONFLICT (owner_id, plant_id) DO UPDATE SET message = excluded.message
                    """)
            }
            for task in records.tasks {
                try await session.query("""
                    INSERT INTO task (owner_id, id, plant_id, kind, state, due_day, remind_at, completed_at, snoozed_until_day, recurring, note,
                                      reminded_at)
                    VALUES (\(owner), \(task.id), \(task.plantID), \(task.kind), \(task.state), \(task.dueDay), \(task.remindAt), \(task.completedAt),
                            \(task.snoozedUntilDay), \(task.recurring), \(task.note), \(task.remindedAt))
                    ON CONFLICT (owner_id, id) DO UPDATE SET plant_id = excluded.plant_id, kind = excluded.kind, state = excluded.state,
                        due_day = excluded.due_day, remind_at = excluded.remind_at, completed_at = excluded.completed_at,
                        snoozed_until_day = excluded.snoozed_until_day, recurring = excluded.recurring, note = excluded.note,
                        reminded_at = excluded.reminded_at
                    """)
            }
            for (id, url, secret) in records.webhooks {
                try await session.query("""
                    INSERT INTO webhook (owner_id, id, url, secret) VALUES (\(owner), \(id), \(url), \(secret))
                    ON CONFLICT (owner_id, id) DO UPDATE SET url = excluded.url, secret = excluded.secret
                    """)
            }
            for push in records.pushSubscriptions {
                try await Self.upsert(session, push, owner: owner, keepingCreatedAt: false)
            }
            for (id, taskID, message, createdAt) in records.reminders {
                try await session.query("""
                    INSERT INTO reminder (owner_id, id, task_id, message, created_at) VALUES (\(owner), \(id), \(taskID), \(message), \(createdAt))
                    ON CONFLICT (owner_id, id) DO UPDATE SET task_id = excluded.task_id, message = excluded.message, created_at = excluded.created_at
                    """)
            }
            for delivery in records.deliveries {
                try await session.query("""
                    INSERT INTO delivery (owner_id, reminder_id, receiver, state, attempts, next_attempt_at, last_error)
                    VALUES (\(owner), \(delivery.reminderID), \(delivery.receiver), \(delivery.state), \(delivery.attempts),
                            \(delivery.nextAttemptAt), \(delivery.lastError))
                    ON CONFLICT (owner_id, reminder_id, receiver) DO UPDATE SET state = excluded.state, attempts = excluded.attempts,
                        next_attempt_at = excluded.next_attempt_at, last_error = excluded.last_error
                    """)
            }
        }
    }
}
