import GRDB

/// A service's SQLite database as its stores use it: GRDB's reads and writes, each transaction a span when a
/// tracer is bootstrapped (``DatabaseSpan``).
public struct TracedDatabase: Sendable {
    /// The database itself, for what is not a store's query (migrations, maintenance).
    public let writer: any DatabaseWriter

    public init(_ writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// A read transaction, on one of the pool's reader connections, run on one of the process's read threads
    /// (``ReadThreads``).
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await DatabaseSpan.traced("sqlite", "read") { [writer] in try await ReadThreads.shared.run { try writer.read(value) } }
    }

    /// A write transaction: committed when `updates` returns, rolled back when it throws.
    public func write<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await DatabaseSpan.traced("sqlite", "write") { try await writer.write(updates) }
    }

    /// A write transaction from a thread that may block (never the cooperative pool's); not traced.
    public func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try writer.write(updates)
    }
}
