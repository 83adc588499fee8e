import Foundation
import PlantGuideStorage

/// Moves scheduling from a SQLite deployment into PostgreSQL, and proves the copy.
public enum SchedulingCopy {
    /// Copies everything of every user of `source` into `target` (replacing rows of the same key, so running it
    /// again is harmless), then compares the two table by table.
    /// - Parameter progress: told the number of users copied so far.
    public static func copy(from source: SQLiteScheduling, to target: PostgresScheduling, progress: (Int) -> Void = { _ in }) async throws -> [CopyCheck] {
        try await OwnerTables.copy(try await source.owners(), progress: progress) { owner in
            try await target.replace(try await source.everything(of: owner))
        }
        return try await compare(source, target)
    }

    /// Compares preferences, schedules, tasks, webhooks, push subscriptions, reminders and deliveries of two backends.
    public static func compare(_ source: any SchedulingCopySource, _ target: any SchedulingCopySource) async throws -> [CopyCheck] {
        try await OwnerTables.compare(Table.allCases.map(\.rawValue), source: rows(source), target: rows(target))
    }

    enum Table: String, CaseIterable {
        case preferences, schedules, tasks, webhooks, pushSubscriptions, reminders, deliveries

        /// This table's rows of `records`.
        func rows(_ records: SchedulingOwnerRecords) -> [KeyedRow] {
            func row(_ id: String, _ fill: (inout RowBytes) -> Void) -> KeyedRow {
                var bytes = RowBytes()
                fill(&bytes)
                return KeyedRow(owner: records.owner, id: id, content: bytes.bytes)
            }
            switch self {
            case .preferences: return records.preferences.map { message in [row("", { $0.add(message) })] } ?? []
            case .schedules: return records.schedules.map { schedule in row(schedule.plantID) { $0.add(schedule.message) } }
            case .tasks: return records.tasks.map { task in
                row(task.id) {
                    $0.add(task.plantID)
                    $0.add(task.kind)
                    $0.add(task.state)
                    $0.add(task.dueDay)
                    $0.add(task.remindAt)
                    $0.add(task.completedAt)
                    $0.add(task.snoozedUntilDay)
                    $0.add(task.recurring ? 1 : 0)
                    $0.add(task.note)
                    $0.add(task.remindedAt)
                }
            }
            case .webhooks: return records.webhooks.map { hook in row(hook.id) { $0.add(hook.url); $0.add(hook.secret) } }
            case .pushSubscriptions: return records.pushSubscriptions.map { push in
                row(push.id) { $0.add(push.endpoint); $0.add(push.p256dh); $0.add(push.auth); $0.add(push.createdAt); $0.add(push.language) }
            }
            case .reminders: return records.reminders.map { reminder in
                row(reminder.id) { $0.add(reminder.taskID); $0.add(reminder.message); $0.add(reminder.createdAt) }
            }
            case .deliveries: return records.deliveries.map { delivery in
                row(delivery.reminderID + "\u{1}" + delivery.receiver) {
                    $0.add(delivery.state)
                    $0.add(delivery.attempts)
                    $0.add(delivery.nextAttemptAt)
                    $0.add(delivery.lastError)
                }
            }
            }
        }
    }

    /// A backend's tables for ``OwnerTables``: everything of an owner, read for each table.
    static func rows(_ store: any SchedulingCopySource) -> OwnerRows {
        OwnerRows(owners: { try await store.owners() }, rows: { owner, table in Table(rawValue: table)!.rows(try await store.everything(of: owner)) })
    }
}
