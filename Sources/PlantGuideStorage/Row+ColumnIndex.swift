import GRDB

extension Row {
    /// The index of the column named `name` (compared as SQLite compares names: ASCII letters without case).
    public func columnIndex(named name: String) -> Int? {
        StatementColumnNames.index(of: name, in: Array(columnNames))
    }
}

/// The columns a reader takes from a statement's rows: an enum whose cases are the columns' names, numbered from 0
/// in order. `names` keeps the cases' names, made once (`static let names = allCases.map { "\($0)" }`): printing a
/// case goes through reflection, which costs more than a point read.
public protocol StatementColumns: RawRepresentable<Int>, CaseIterable {
    /// Each case's column name, in the order of the cases.
    static var names: [String] { get }
}

/// Where the rows of one statement hold the columns a reader needs, found once for all of them. GRDB's lookup by
/// name compares every column's name lowercased, in every row: for a page of rows that cost more than the query.
public struct ColumnIndices<Column: StatementColumns> {
    private let indices: [Int]

    /// The columns of `row`'s statement. A column missing from it is a programming error: the statement is the
    /// reader's own.
    public init(_ row: Row) {
        let present = Array(row.columnNames)
        indices = Column.names.map { name in
            guard let index = StatementColumnNames.index(of: name, in: present) else { preconditionFailure("no column \(name) in \(present)") }
            return index
        }
    }

    /// The index of `column` in each row.
    public subscript(_ column: Column) -> Int { indices[column.rawValue] }
}

/// Finding a column among a statement's names.
enum StatementColumnNames {
    /// The first of `names` equal to `name`, or else equal to it but for the case of ASCII letters (SQLite's rule).
    static func index(of name: String, in names: [String]) -> Int? {
        names.firstIndex(of: name) ?? names.firstIndex { $0.utf8.elementsEqual(name.utf8) { lowercased($0) == lowercased($1) } }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
