import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideStorage
import NIOCore
import PostgresNIO

/// The reminder outbox in PostgreSQL. Due reminders are collected one user at a time under that user's lock, so
/// that replicas collecting together write each reminder once.
extension PostgresScheduling {
    public func dueReminderCount(at time: Double, limit: Int) async throws -> Int {
        try await database.read { session in try await session.execute(DueTasksStatement(time: time, limit: limit)).first?.tasks ?? 0 }
    }

    public func collectDueReminders(at time: Double, maxLateness: Double, publishing: Bool) async throws -> Int {
        // Owners in a random order, a few at once: replicas collecting together mostly take different owners (one
        // that meets an owner another is collecting waits for its lock, then finds nothing left to write).
        let owners = try await database.read { session in
            try await session.execute(DueTasksStatement(time: time, limit: 1_000)).first?.owners ?? []
        }.shuffled()
        return try await withThrowingTaskGroup(of: Int.self) { group in
            var next = owners.makeIterator()
            var collected = 0
            func start() -> Bool {
                guard let owner = next.next() else { return false }
                group.addTask {
                    try await self.write(owner: owner) { session in
                        try await Self.collect(session, owner: owner, at: time, maxLateness: maxLateness, publishing: publishing)
                    }
                }
                return true
            }
            for _ in 0..<Self.collectors where start() {}
            while let count = try await group.next() {
                collected += count
                _ = start()
            }
            return collected
        }
    }

    /// How many owners one replica collects at once (each a transaction on a connection of its pool).
    static let collectors = 4

    /// Writes the due reminders of one user (see ``SchedulingRecords/collectDueReminders(at:maxLateness:publishing:)``),
    /// in a fixed number of statements however many tasks are due.
    private static func collect(_ session: PostgresSession, owner: String, at time: Double, maxLateness: Double, publishing: Bool) async throws -> Int {
        let tasks = try await PostgresTaskRows.tasks(session.query("""
            SELECT \(unescaped: PostgresTaskRows.columns) FROM task
            WHERE owner_id = \(owner) AND reminded_at IS NULL AND remind_at >= 0 AND remind_at <= \(time) AND state IN (1, 3)
            """))
        guard !tasks.isEmpty else { return 0 }
        let preferences = try await Self.preferences(session, owner: owner)
        var receivers = try await session.all("SELECT id FROM webhook WHERE owner_id = \(owner) ORDER BY id", as: String.self)
            .map { DeliveryReceiver.webhook(id: $0).stored }
            + session.all("SELECT id FROM push_subscription WHERE owner_id = \(owner) ORDER BY id", as: String.self)
            .map { DeliveryReceiver.push(subscriptionID: $0).stored }
        if publishing { receivers.insert(DeliveryReceiver.stream.stored, at: 0) }
        let plantIDs = Array(Set(tasks.map(\.plantID)))
        var names: [String: String] = [:]
        for (plantID, message) in try await session.all("""
            SELECT plant_id, message FROM schedule WHERE owner_id = \(owner) AND plant_id = ANY(\(plantIDs)::text[])
            """, as: (String, Data).self) {
            names[plantID] = try Schedule(serializedBytes: message).plantName
        }
        var reminders: [(id: String, taskID: String, message: Data)] = []
        for task in tasks {
            let remindAt = task.hasRemindAt ? Double(task.remindAt.seconds) + Double(task.remindAt.nanos) / 1e9 : 0
            // Toggles as they stand now, and not too late to be useful (see ReminderDispatcher).
            guard remindAt >= time - maxLateness, let kind = TaskRows.kind(task.type.rawValue),
                  SchedulingStore.remindsPlant(task.plantID, kind: kind, preferences) else { continue }
            let reminder = ReminderDispatcher.reminder(task, owner: owner, plantName: names[task.plantID] ?? task.plantID, remindAt: remindAt)
            reminders.append((reminder.id, task.id, try reminder.serializedBytes()))
        }
        if !reminders.isEmpty {
            let ids = reminders.map(\.id)
            try await session.query("""
                INSERT INTO reminder (owner_id, id, task_id, message, created_at)
                SELECT \(owner), id, task_id, message, \(time)
                FROM unnest(\(ids)::text[], \(reminders.map(\.taskID))::text[], \(reminders.map { ByteBuffer(bytes: $0.message) })::bytea[])
                    AS due (id, task_id, message)
                ON CONFLICT (owner_id, id) DO NOTHING
                """)
            try await session.query("""
                INSERT INTO delivery (owner_id, reminder_id, receiver, next_attempt_at)
                SELECT \(owner), reminder_id, receiver, \(time)
                FROM unnest(\(ids)::text[]) AS reminders (reminder_id), unnest(\(receivers)::text[]) AS receivers (receiver)
                ON CONFLICT (owner_id, reminder_id, receiver) DO NOTHING
                """)
        }
        try await session.query("UPDATE task SET reminded_at = \(time) WHERE owner_id = \(owner) AND id = ANY(\(tasks.map(\.id))::text[])")
        return tasks.count
    }

    public func claimDueDeliveries(at time: Double, lease: Double, limit: Int) async throws -> [DueDelivery] {
        // Rows another replica is claiming right now are skipped, not waited for; one it claimed a moment ago no
        // longer matches (PostgreSQL re-checks a locked row's condition on its newest version).
        try await database.read { session in
            try await session.all("""
                WITH due AS (
                    SELECT owner_id, reminder_id, receiver FROM delivery WHERE state = 0 AND next_attempt_at <= \(time)
                    ORDER BY next_attempt_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                UPDATE delivery SET next_attempt_at = \(time + lease)
                FROM due, reminder
                WHERE delivery.owner_id = due.owner_id AND delivery.reminder_id = due.reminder_id AND delivery.receiver = due.receiver
                    AND reminder.owner_id = due.owner_id AND reminder.id = due.reminder_id
                RETURNING delivery.owner_id, delivery.reminder_id, delivery.receiver, delivery.attempts, reminder.message
                """, as: (String, String, String, Int, Data).self).map {
                DueDelivery(owner: $0.0, reminderID: $0.1, receiver: $0.2, attempts: $0.3, message: $0.4)
            }
        }
    }

    public func reminds(owner: String, plantID: String, kind: CareTaskKind) async throws -> Bool {
        try await database.read { session in SchedulingStore.remindsPlant(plantID, kind: kind, try await Self.preferences(session, owner: owner)) }
    }

    public func webhook(id: String, owner: String) async throws -> (url: String, secret: String)? {
        try await database.read { session in
            try await session.all("SELECT url, secret FROM webhook WHERE owner_id = \(owner) AND id = \(id)", as: (String, String).self).first
                .map { (url: $0.0, secret: $0.1) }
        }
    }

    public func markDelivery(_ delivery: DueDelivery, state: DeliveryState, attempts: Int, next: Double, error: String) async throws {
        _ = try await database.write { session in
            try await session.query("""
                UPDATE delivery SET state = \(state.rawValue), attempts = \(attempts), next_attempt_at = \(next), last_error = \(error)
                WHERE owner_id = \(delivery.owner) AND reminder_id = \(delivery.reminderID) AND receiver = \(delivery.receiver)
                """)
        }
    }
}

/// The reminder dispatcher's query, prepared once per connection: how many tasks (at most `limit`) have a
/// reminder whose time has come and that is not written yet (served by a partial index), and their owners, in
/// one row.
struct DueTasksStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT count(*), array_agg(DISTINCT owner_id) FROM (
            SELECT owner_id FROM task WHERE reminded_at IS NULL AND remind_at >= 0 AND remind_at <= $1::float8 AND state IN (1, 3) LIMIT $2::int8
        ) AS due
        """
    static let bindingDataTypes: [PostgresDataType] = [.float8, .int8]

    var time: Double
    var limit: Int

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(time)
        bindings.append(limit)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> (tasks: Int, owners: [String]) {
        let (tasks, owners) = try row.decode((Int, [String]?).self)
        return (tasks, owners ?? [])
    }
}
