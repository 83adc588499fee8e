import GRDB
import PlantGuideStorage
import Testing

/// `ColumnIndices`, which page readers use to read many rows of one statement by index: each column must be found
/// by its name whatever its place and case in the statement.
@Suite("Column indices of a statement's rows")
struct ColumnIndicesTests {
    private enum Column: Int, StatementColumns {
        case name, addedAt, id

        static let names = allCases.map { "\($0)" }
    }

    @Test("each column is found by name, without case, in the statement's own order")
    func findsColumnsByName() throws {
        let database = try DatabaseQueue()
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT 'p1' AS ID, 'basil' AS name, 'extra' AS other, 17.5 AS ADDEDAT UNION ALL SELECT 'p2', 'mint', '', 3")
        }
        let columns = ColumnIndices<Column>(rows[0])
        #expect([columns[.id], columns[.name], columns[.addedAt]] == [0, 1, 3])
        #expect(rows.map { $0[columns[.name]] as String } == ["basil", "mint"])
        #expect(rows.map { $0[columns[.addedAt]] as Double } == [17.5, 3])
        #expect(rows[1].columnIndex(named: "Other") == 2)
        #expect(rows[1].columnIndex(named: "missing") == nil)
    }
}
