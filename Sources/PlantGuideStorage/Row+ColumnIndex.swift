import Foundation
import GRDB

extension Row {
    /// The index of the column named `name` (compared as SQLite compares names, without case).
    public func columnIndex(named name: String) -> Int? {
        columnNames.firstIndex { $0.caseInsensitiveCompare(name) == .orderedSame }.map { distance(from: startIndex, to: $0) }
    }
}

/// Where the rows of one statement hold the columns a reader needs, found once for all of them. GRDB's lookup by
/// name compares every column's name lowercased, in every row: for a page of rows that cost more than the query.
///
/// `Column` names the columns: an enum whose cases are the columns' names (as Swift prints a case), numbered from 0
/// in order.
public struct ColumnIndices<Column: RawRepresentable & CaseIterable> where Column.RawValue == Int {
    private let indices: [Int]

    /// The columns of `row`'s statement. A column missing from it is a programming error: the statement is the
    /// reader's own.
    public init(_ row: Row) {
        indices = Column.allCases.map { column in
            guard let index = row.columnIndex(named: "\(column)") else { preconditionFailure("no column \(column) in \(row.columnNames)") }
            return index
        }
    }

    /// The index of `column` in each row.
    public subscript(_ column: Column) -> Int { indices[column.rawValue] }
}
