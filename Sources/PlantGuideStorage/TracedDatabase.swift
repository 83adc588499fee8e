import Foundation
import GRDB
import PlantGuideThreads

/// A service's SQLite database as its stores use it: GRDB's reads and writes, each transaction a span when a
/// tracer is bootstrapped (``DatabaseSpan``).
public struct TracedDatabase: Sendable {
    /// The database itself, for what is not a store's query (migrations, maintenance).
    public let writer: any DatabaseWriter

    public init(_ writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// A read transaction, on one of the pool's reader connections: GRDB's synchronous read, on one of
    /// ``readThreads``.
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await DatabaseSpan.traced("sqlite", "read") { [writer] in try await Self.readThreads.run { try writer.read(value) } }
    }

    /// The process's threads for SQLite reads, shared by its databases. A read costs one hand-off there and one
    /// back; GRDB's async read costs three (its pool's waiting queue, the connection's queue, the way back), each a
    /// thread wake-up, which in a profile of collection's GetPlant cost more than the read itself. Fewer than
    /// GRDB's five reader connections, so that a burst of reads queues here rather than waking a thread each.
    static let readThreads = WorkerThreads(count: max(2, min(4, 2 * ProcessInfo.processInfo.activeProcessorCount)), name: "sqlite-read")

    /// A write transaction: committed when `updates` returns, rolled back when it throws.
    public func write<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await DatabaseSpan.traced("sqlite", "write") { try await writer.write(updates) }
    }

    /// A write transaction from a thread that may block (never the cooperative pool's); not traced.
    public func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try writer.write(updates)
    }
}
