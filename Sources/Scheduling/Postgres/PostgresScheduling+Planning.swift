import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideStorage
import PostgresNIO

/// Planning in PostgreSQL (``SchedulePlanning`` decides, these read and write): a plant's plan is written by one
/// statement, `replan` (``PostgresSchedulingSchema``), which takes the owner's lock itself.
///
/// Saving a schedule, the most frequent write, plans without holding a transaction open: it reads the
/// preferences and the plant's history, plans, and hands `replan` what it read, which `replan` checks again
/// under the lock before writing. Two statements instead of a transaction of ten; a plan made from a read that
/// another change overtook is made again.
extension PostgresScheduling {
    public func putSchedule(_ schedule: Schedule, owner: String, at time: Date) async throws -> [CareTask] {
        let message = try schedule.serializedBytes() as Data
        let written = try await database.read { session -> [CareTask]? in
            for _ in 0..<3 {
                guard let basis = try await Self.planBasis(session, plantID: schedule.plantID, owner: owner, at: time) else { return nil }
                let tasks = try SchedulePlanning.tasks(schedule, preferences: basis.preferences, history: basis.history, at: time)
                do {
                    return try await Self.replan(session, schedule.plantID, owner: owner, today: basis.today, tasks: tasks,
                                                 storing: message, checking: basis)
                } catch let error as PSQLError where PostgresSession.isSerializationFailure(error) {
                    continue
                }
            }
            return nil
        }
        if let written { return written }
        // Overtaken three times in a row (or a time zone more than a day from UTC): planned under the owner's lock.
        return try await write(owner: owner) { session in try await Self.plan(session, schedule, owner: owner, at: time, storing: message) }
    }

    /// Plans `schedule` again inside a write transaction that holds `owner`'s lock, storing its message too when
    /// given; returns the plant's open tasks.
    @discardableResult
    static func plan(_ session: PostgresSession, _ schedule: Schedule, owner: String, at time: Date, preferences known: Preferences? = nil,
                     storing message: Data? = nil) async throws -> [CareTask] {
        var preferences = known ?? Preferences()
        if known == nil { preferences = try await Self.preferences(session, owner: owner) }
        let today = try SchedulePlanning.today(preferences, at: time).dayNumber
        let history = try await Self.history(session, plantID: schedule.plantID, owner: owner, today: today)
        let tasks = try SchedulePlanning.tasks(schedule, preferences: preferences, history: history, at: time)
        return try await replan(session, schedule.plantID, owner: owner, today: today, tasks: tasks, storing: message, checking: nil)
    }

    /// What a plan was made from, for `replan` to check: the stored preferences (nil when the owner has none)
    /// and the plant's history as of `today`.
    struct PlanBasis {
        var stored: Data?
        var preferences: Preferences
        var today: Int
        var history: SchedulePlanning.History
    }

    /// The preferences and the plant's history in one statement, without the owner's lock; nil when the owner's
    /// today is more than a day from UTC's (never for a real time zone).
    ///
    /// The history depends on today, which depends on the preferences being read: the statement reads the
    /// history for any today from yesterday to tomorrow in UTC (the latest overdue day below the day before
    /// yesterday, and the open days from then to today), and the history of the owner's today is picked from it.
    static func planBasis(_ session: PostgresSession, plantID: String, owner: String, at time: Date) async throws -> PlanBasis? {
        let utcDay = Int((time.timeIntervalSince1970 / 86_400).rounded(.down))
        let rows = try await session.execute(PlanBasisStatement(owner: owner, plantID: plantID, utcDay: utcDay))
        let stored = rows.first?.0
        let preferences = try stored.map { try Preferences(serializedBytes: $0) } ?? SchedulingStore.defaultPreferences
        let today = try SchedulePlanning.today(preferences, at: time).dayNumber
        guard (utcDay - 1...utcDay + 1).contains(today) else { return nil }
        var history = SchedulePlanning.History()
        for (_, kind, completed, overdueBefore, recent) in rows {
            guard let kind else { continue }
            history.lastCompleted[kind] = completed
            history.lastOverdue[kind] = ((recent ?? []).filter { $0 < today } + [overdueBefore].compactMap { $0 }).max()
        }
        return PlanBasis(stored: stored, preferences: preferences, today: today, history: history)
    }

    /// The plant's history as of `today`, read under the owner's lock.
    static func history(_ session: PostgresSession, plantID: String, owner: String, today: Int) async throws -> SchedulePlanning.History {
        var history = SchedulePlanning.History()
        for (kind, completed, overdue) in try await session.all("""
            SELECT kind, completed, overdue FROM plan_history(\(owner), \(plantID), \(today)::integer)
            """, as: (Int, Double?, Int?).self) {
            history.lastCompleted[kind] = completed
            history.lastOverdue[kind] = overdue
        }
        return history
    }

    /// Writes a plant's plan (`replan`), storing the schedule message when given, after checking `basis` when
    /// given; returns the plant's open tasks. Throws serialization_failure when `basis` is no longer current.
    static func replan(_ session: PostgresSession, _ plantID: String, owner: String, today: Int, tasks: [SchedulePlanning.PlannedTask],
                       storing schedule: Data?, checking basis: PlanBasis?) async throws -> [CareTask] {
        // The history as arrays in kind order; a missing value is NaN (which PostgreSQL counts equal to itself).
        let history = basis?.history ?? SchedulePlanning.History()
        let kinds = Set(history.lastCompleted.keys).union(history.lastOverdue.keys).sorted()
        let completed = kinds.map { history.lastCompleted[$0] ?? .nan }
        let overdue = kinds.map { history.lastOverdue[$0].map(Double.init) ?? .nan }
        return try await PostgresTaskRows.tasks(session.query("""
            SELECT \(unescaped: PostgresTaskRows.columns) FROM replan(
                \(owner), \(plantID), \(today)::integer, \(schedule), \(basis != nil), \(basis?.stored),
                \(kinds)::integer[], \(completed)::float8[], \(overdue)::float8[],
                \(tasks.map(\.id))::text[], \(tasks.map(\.kind))::integer[], \(tasks.map(\.dueDay))::integer[], \(tasks.map(\.remindAt))::float8[])
            """))
    }
}

/// ``PostgresScheduling/planBasis(_:plantID:owner:at:)``'s statement, prepared once per connection: the owner's
/// stored preferences message and, per kind of the plant's tasks, the last completion, the latest open recurring
/// due day before the day before `utcDay`, and the open recurring due days from then to `utcDay` (NULLs when the
/// plant has no such task).
struct PlanBasisStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT (SELECT message FROM preferences WHERE owner_id = $1::text), h.kind, h.completed, h.overdue_before, h.recent
        FROM (SELECT 1) AS one LEFT JOIN LATERAL (
            SELECT kind, max(completed_at) FILTER (WHERE state = 2) AS completed,
                   max(due_day) FILTER (WHERE state <> 2 AND due_day < $3::int8 - 1) AS overdue_before,
                   array_agg(DISTINCT due_day) FILTER (WHERE state <> 2 AND due_day >= $3::int8 - 1)::int8[] AS recent
            FROM task WHERE owner_id = $1::text AND plant_id = $2::text
                AND (state = 2 OR (recurring AND state IN (1, 3) AND due_day <= $3::int8))
            GROUP BY kind) AS h ON true
        """
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .int8]

    var owner: String
    var plantID: String
    var utcDay: Int

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(owner)
        bindings.append(plantID)
        bindings.append(utcDay)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> (Data?, Int?, Double?, Int?, [Int]?) {
        try row.decode((Data?, Int?, Double?, Int?, [Int]?).self)
    }
}
