import Logging
import PostgresNIO

/// A store's handle on one pooled connection for the length of a ``PostgresStorage/read(_:)`` or
/// ``PostgresStorage/write(_:)``: statements run in order, in the service's schema, logged (at the driver's
/// debug level) into the service's logger.
public struct PostgresSession: Sendable {
    let connection: PostgresConnection
    let logger: Logger
    let observer: (@Sendable (PostgresQuery) -> Void)?

    /// Runs `query` and returns its rows (consume them or let them go).
    @discardableResult
    public func query(_ query: PostgresQuery, file: String = #fileID, line: Int = #line) async throws -> PostgresRowSequence {
        observer?(query)
        return try await connection.query(query, logger: logger, file: file, line: line)
    }

    /// Runs `query` and counts the rows it returns (a statement's `RETURNING 1`: how many rows it changed).
    public func count(_ query: PostgresQuery, file: String = #fileID, line: Int = #line) async throws -> Int {
        var count = 0
        for try await _ in try await self.query(query, file: file, line: line) { count += 1 }
        return count
    }

    /// Runs a statement the connection prepares once and keeps (no parsing and planning on every call: for the
    /// statements a service runs most) and returns its rows, decoded by the statement.
    public func execute<Statement: PostgresPreparedStatement>(_ statement: Statement, file: String = #fileID, line: Int = #line) async throws
        -> [Statement.Row] {
        observer?(PostgresQuery(unsafeSQL: Statement.sql, binds: try statement.makeBindings()))
        var rows: [Statement.Row] = []
        for try await row in try await connection.execute(statement, logger: logger, file: file, line: line) { rows.append(row) }
        return rows
    }

    /// The rows of `query` decoded as `types`, all of them.
    public func all<each Column: PostgresDecodable>(
        _ query: PostgresQuery, as types: (repeat each Column).Type, file: String = #fileID, line: Int = #line
    ) async throws -> [(repeat each Column)] {
        var rows: [(repeat each Column)] = []
        for try await row in try await self.query(query, file: file, line: line).decode(types) { rows.append(row) }
        return rows
    }
}

extension PostgresSession {
    /// Whether `error` is a statement's serialization failure (SQLSTATE 40001): what it did was undone, and
    /// running it again, from a fresh read, may succeed.
    public static func isSerializationFailure(_ error: PSQLError) -> Bool {
        error.code == .server && error.serverInfo?[.sqlState] == "40001"
    }
}
