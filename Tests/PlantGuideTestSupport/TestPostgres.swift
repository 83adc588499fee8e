import Foundation
import PlantGuideStorage
import Synchronization
import Testing

/// The throwaway PostgreSQL server of this test process (`Scripts/postgres-throwaway`: initdb in a temporary
/// folder, a free loopback port, the unprivileged `postgres` user when run as root), started on first use and
/// stopped by its watcher when the process exits. Each test works in a schema of its own on it.
public enum TestPostgres {
    public struct Server: Sendable {
        /// postgres://plantguide@127.0.0.1:PORT/plantguide
        public var url: String
        public var password: String
    }

    private static let started = Mutex<Task<Server, any Error>?>(nil)

    /// The server, started by the first caller.
    public static func server() async throws -> Server {
        let task = started.withLock { task in
            if let task { return task }
            let new = Task { try await start() }
            task = new
            return new
        }
        return try await task.value
    }

    /// Settings for a schema no other test uses (created by the store's migrations).
    public static func settings(poolSize: Int = 4) async throws -> PostgresSettings {
        let server = try await server()
        return try PostgresSettings(url: server.url, password: server.password, poolSize: poolSize,
                                    schema: "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))
    }

    private static func start() async throws -> Server {
        let script = ModelFixtures.repositoryRoot.appendingPathComponent("Scripts/postgres-throwaway")
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), [script.path, "--watch", String(getpid())])
        let fields = outcome.output.split(separator: " ").map(String.init)
        guard outcome.status == 0, fields.count == 3 else {
            throw TestPostgresError(description: "Scripts/postgres-throwaway failed (status \(outcome.status)): \(outcome.output)")
        }
        return Server(url: fields[0], password: fields[1])
    }
}

struct TestPostgresError: Error, CustomStringConvertible {
    var description: String
}

/// The storage backends every store test runs against: SQLite files, and PostgreSQL (``TestPostgres``).
public enum TestBackend: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    public var testDescription: String { rawValue }
}
