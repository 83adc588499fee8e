import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPC
import PostgresNIO

/// Care tasks as rows of PostgreSQL's table `task` (states and kinds as the wire's numbers, as in SQLite).
enum PostgresTaskRows {
    typealias CareTask = Plantguide_Scheduling_V1_CareTask

    /// The columns ``tasks(_:)`` decodes, in its order.
    static let columns = "id, plant_id, kind, state, due_day, remind_at, completed_at, snoozed_until_day, recurring, note"

    /// The tasks of rows selecting ``columns``.
    static func tasks(_ rows: PostgresRowSequence) async throws -> [CareTask] {
        var tasks: [CareTask] = []
        let types = (String, String, Int, Int, Int, Double, Double?, Int?, Bool, String).self
        for try await (id, plantID, kind, state, dueDay, remindAt, completedAt, snoozedUntil, recurring, note) in rows.decode(types) {
            var task = CareTask()
            task.id = id
            task.plantID = plantID
            task.type = .init(rawValue: kind) ?? .unspecified
            task.state = .init(rawValue: state) ?? .unspecified
            task.dueDate = LocalDate(dayNumber: dueDay).description
            if remindAt >= 0 { task.remindAt = WireTimestamp.clamped(remindAt) }
            if let completedAt { task.completedAt = WireTimestamp.clamped(completedAt) }
            if let snoozedUntil { task.snoozedUntil = LocalDate(dayNumber: snoozedUntil).description }
            task.recurring = recurring
            task.note = note
            tasks.append(task)
        }
        return tasks
    }
}
