import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPCCore
import PostgresNIO

/// Care tasks as rows of PostgreSQL's table `task` (states and kinds as the wire's numbers, as in SQLite).
enum PostgresTaskRows {
    typealias CareTask = Plantguide_Scheduling_V1_CareTask

    /// The columns ``tasks(_:)`` decodes, in its order.
    static let columns = "id, plant_id, kind, state, due_day, remind_at, completed_at, snoozed_until_day, recurring, note"

    /// The tasks of rows selecting ``columns``.
    static func tasks(_ rows: PostgresRowSequence) async throws -> [CareTask] {
        var tasks: [CareTask] = []
        for try await row in rows {
            if let task = try task(row.makeRandomAccess(), from: 0) { tasks.append(task) }
        }
        return tasks
    }

    /// The task in ``columns`` from cell `first` on, or nil when its id is NULL.
    static func task(_ cells: PostgresRandomAccessRow, from first: Int) throws -> CareTask? {
        guard let id = try cells[first].decode(String?.self) else { return nil }
        var task = CareTask()
        task.id = id
        task.plantID = try cells[first + 1].decode(String.self)
        task.type = .init(rawValue: try cells[first + 2].decode(Int.self)) ?? .unspecified
        task.state = .init(rawValue: try cells[first + 3].decode(Int.self)) ?? .unspecified
        task.dueDate = LocalDate(dayNumber: try cells[first + 4].decode(Int.self)).description
        let remindAt = try cells[first + 5].decode(Double.self)
        if remindAt >= 0 { task.remindAt = WireTimestamp.clamped(remindAt) }
        if let completedAt = try cells[first + 6].decode(Double?.self) { task.completedAt = WireTimestamp.clamped(completedAt) }
        if let snoozedUntil = try cells[first + 7].decode(Int?.self) { task.snoozedUntil = LocalDate(dayNumber: snoozedUntil).description }
        task.recurring = try cells[first + 8].decode(Bool.self)
        task.note = try cells[first + 9].decode(String.self)
        return task
    }
}

/// ListTasks' statement, prepared once per connection: an owner's tasks in states `states` (any when empty)
/// due from `firstDay` to `lastDay`, of kinds `kinds` (any when empty) and plant `plantID` (any when empty), at
/// most `limit` by due day, plant and kind; each row leads with the owner's stored preferences message (one row
/// with NULL task columns when no task matches), see ``PostgresScheduling/forToday(owner:at:_:)``.
struct ListTasksStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT p.message, t.* FROM (SELECT (SELECT message FROM preferences WHERE owner_id = $1) AS message) AS p
        LEFT JOIN LATERAL (
            SELECT \(PostgresTaskRows.columns) FROM task
            WHERE owner_id = $1::text AND (cardinality($2::int8[]) = 0 OR state = ANY($2::int8[])) AND due_day BETWEEN $3::int8 AND $4::int8
                AND (cardinality($5::int8[]) = 0 OR kind = ANY($5::int8[])) AND ($6::text = '' OR plant_id = $6::text)
            ORDER BY due_day, plant_id, kind LIMIT $7::int8) AS t ON true
        ORDER BY t.due_day, t.plant_id, t.kind
        """
    static let bindingDataTypes: [PostgresDataType] = [.text, .int8Array, .int8, .int8, .int8Array, .text, .int8]

    var owner: String
    var states: [Int]
    var firstDay: Int
    var lastDay: Int
    var kinds: [Int]
    var plantID: String
    var limit: Int

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(owner)
        bindings.append(states)
        bindings.append(firstDay)
        bindings.append(lastDay)
        bindings.append(kinds)
        bindings.append(plantID)
        bindings.append(limit)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> (preferences: Data?, task: PostgresTaskRows.CareTask?) {
        let cells = row.makeRandomAccess()
        return (try cells[0].decode(Data?.self), try PostgresTaskRows.task(cells, from: 1))
    }
}
