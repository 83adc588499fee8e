import Foundation
import GRDB
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPCCore
import PlantGuideStorage
import SwiftProtobuf

/// Care tasks as rows of table `task`. States are the wire's numbers: 1 scheduled, 2 completed, 3 snoozed,
/// 4 skipped. A `remindAt` below zero means no reminder (the type or the plant has notifications off).
enum TaskRows {
    typealias CareTask = Plantguide_Scheduling_V1_CareTask

    /// Table `task` read through the index of one plant's tasks. Statements about one plant name it: without
    /// statistics SQLite takes taskByDay (every task of the user from a day on) whenever such a statement also
    /// bounds or orders by the day, and a person's every plant would then cost each write on one.
    static let ofPlant = "task INDEXED BY taskByPlant"
    /// Table `task` read through the user's tasks by day: the task lists of every plant, which SQLite would
    /// otherwise read through taskByPlant (all of the user's tasks) to save a sort when the day is fixed.
    static let byDay = "task INDEXED BY taskByDay"

    /// The tasks of `table` that meet `condition`. Its statement is kept with the connection, prepared once
    /// (preparing costs more than running a point read): pass `cached: false` for SQL that carries values, whose
    /// every variant would stay in the cache.
    static func fetch(_ db: Database, _ condition: String, _ arguments: [any DatabaseValueConvertible], from table: String = "task",
                      cached: Bool = true) throws -> [CareTask] {
        let sql = "SELECT * FROM \(table) WHERE \(condition)"
        return tasks(try Row.fetchAll(db.statement(sql: sql, cached: cached), arguments: StatementArguments(arguments)))
    }

    /// The tasks of rows of one statement, in their order, each column found once.
    static func tasks(_ rows: [Row]) -> [CareTask] {
        guard let first = rows.first else { return [] }
        let columns = ColumnIndices<Column>(first)
        return rows.map { task($0, columns: columns) }
    }

    /// The task of one row.
    static func task(_ row: Row) -> CareTask {
        task(row, columns: ColumnIndices(row))
    }

    private static func task(_ row: Row, columns: ColumnIndices<Column>) -> CareTask {
        var task = CareTask()
        task.id = row[columns[.id]]
        task.plantID = row[columns[.plantID]]
        task.type = .init(rawValue: row[columns[.kind]]) ?? .unspecified
        task.state = .init(rawValue: row[columns[.state]]) ?? .unspecified
        task.dueDate = LocalDate(dayNumber: row[columns[.dueDay]]).description
        let remind: Double = row[columns[.remindAt]]
        // Clamped: a row written by older code must never stop a read.
        if remind >= 0 { task.remindAt = WireTimestamp.clamped(remind) }
        if let completed: Double = row[columns[.completedAt]] { task.completedAt = WireTimestamp.clamped(completed) }
        if let snoozed: Int = row[columns[.snoozedUntilDay]] { task.snoozedUntil = LocalDate(dayNumber: snoozed).description }
        task.recurring = row[columns[.recurring]]
        task.note = row[columns[.note]]
        return task
    }

    /// The columns of table `task` that make a ``CareTask``.
    private enum Column: Int, StatementColumns {
        case id, plantID, kind, state, dueDay, remindAt, completedAt, snoozedUntilDay, recurring, note

        static let names = allCases.map { "\($0)" }
    }

    static func wireKind(_ kind: CareTaskKind) -> Plantguide_Scheduling_V1_TaskType {
        switch kind {
        case .watering: .watering
        case .fertilizing: .fertilizing
        case .pruning: .pruning
        case .repotting: .repotting
        case .pestControl: .pestControl
        case .rotation: .rotation
        case .harvest: .harvest
        }
    }

    /// The domain kind of a stored wire number (the inverse of `wireKind`).
    static func kind(_ raw: Int) -> CareTaskKind? {
        CareTaskKind.allCases.first { wireKind($0).rawValue == raw }
    }
}
