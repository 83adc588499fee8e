import Foundation
import Logging
import PostgresNIO
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

        /// The environment that points a service at this server, in `schema`.
        public func environment(schema: String) -> [String: String] {
            ["PLANTGUIDE_DATABASE_URL": url, "PLANTGUIDE_DATABASE_PASSWORD": password, "PLANTGUIDE_DATABASE_SCHEMA": schema]
        }
    }

    /// How long a test's database call may take before it fails UNAVAILABLE: far beyond the services' 5 s, because
    /// the whole suite shares two cores and a call may wait seconds for one while every test runs. Tests of
    /// outages rely on the probe, which notices a stopped server within about 2 s, not on this.
    public static let operationTimeout = Duration.seconds(60)

    /// How long the test server may answer nothing before an in-process store takes it for gone: the services' 2 s
    /// is measured by the outage tests, against service processes; in-process, a moment with every test starting
    /// processes at once must not look like an outage.
    public static let outageAfter = Duration.seconds(20)

    /// A store over `settings` with the tests' patience (``operationTimeout``, ``outageAfter``).
    public static func open(
        _ settings: PostgresSettings, migrations: [PostgresMigration], logger: Logger = Logger(label: "test"),
        observer: (@Sendable (PostgresQuery) -> Void)? = nil
    ) async throws -> PostgresStorage {
        try await PostgresStorage.open(settings, migrations: migrations, logger: logger, operationTimeout: operationTimeout,
                                       outageAfter: outageAfter, observer: observer)
    }

    /// Runs `plantguide-SERVICE copy-data` from a SQLite data folder into the database and schema of `database`
    /// (an ``environment(schema:)``).
    public static func copyData(_ service: String, from folder: URL, into database: [String: String]) async throws -> ChildProcess.Outcome {
        try await ChildProcess.run(
            BuildProducts.url(of: "plantguide-\(service)"),
            ["copy-data", "--from", folder.path, "--to", database["PLANTGUIDE_DATABASE_URL"]!, "--schema", database["PLANTGUIDE_DATABASE_SCHEMA"]!],
            environment: ["PLANTGUIDE_DATABASE_PASSWORD": database["PLANTGUIDE_DATABASE_PASSWORD"]!], mergingStandardError: true)
    }

    /// A schema name no other test uses.
    public static func uniqueSchema() -> String {
        "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
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

    /// Settings for a schema no other test uses (created by the store's migrations), with a small pool: dozens of
    /// stores are open at once on the one server, each connection a backend process of its own.
    public static func settings(poolSize: Int = 4) async throws -> PostgresSettings {
        let server = try await server()
        return try PostgresSettings(url: server.url, password: server.password, poolSize: poolSize,
                                    schema: uniqueSchema())
    }

    private static func start() async throws -> Server {
        let fields = try await run(["--watch", String(getpid())]).split(separator: " ").map(String.init)
        guard fields.count == 3 else { throw TestPostgresError(description: "Scripts/postgres-throwaway printed '\(fields)'") }
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

extension TestPostgres {
    /// A PostgreSQL server of one test's own, for outages (`pause`, `resume`, `freeze`, `thaw`); stopped when
    /// released, or by its watcher when the process exits.
    public final class DedicatedServer: Sendable {
        public let server: Server
        let folder: String

        init(server: Server, folder: String) {
            self.server = server
            self.folder = folder
        }

        /// The environment that points a service at this server, in `schema`.
        public func environment(schema: String) -> [String: String] { server.environment(schema: schema) }

        /// Stops the server at once, as a crash or a lost host would.
        public func pause() async throws { try await TestPostgres.script("pause", folder) }

        /// Starts it again on the same port.
        public func resume() async throws { try await TestPostgres.script("resume", folder) }

        /// Stops every process of the server without ending it: connections stay open and nothing answers, as on
        /// a stalled host, until ``thaw()``.
        public func freeze() async throws { try await TestPostgres.script("freeze", folder) }

        /// Lets a frozen server run on.
        public func thaw() async throws { try await TestPostgres.script("thaw", folder) }

        deinit {
            let folder = self.folder
            Task { try? await TestPostgres.script("stop", folder) }
        }
    }

    /// Starts a server for one test.
    public static func dedicated() async throws -> DedicatedServer {
        let outcome = try await run(["--watch", String(getpid())])
        let fields = outcome.split(separator: " ").map(String.init)
        guard fields.count == 3 else { throw TestPostgresError(description: "Scripts/postgres-throwaway printed '\(outcome)'") }
        return DedicatedServer(server: Server(url: fields[0], password: fields[1]), folder: fields[2])
    }

    /// The environment that points a service at the shared server, in a schema of its own.
    public static func environment(schema: String = uniqueSchema()) async throws -> [String: String] {
        try await server().environment(schema: schema)
    }

    static func script(_ arguments: String...) async throws {
        _ = try await run(arguments)
    }

    /// Runs the script; its error output is shown on failure, and kept out of a start's one line.
    private static func run(_ arguments: [String]) async throws -> String {
        let script = ModelFixtures.repositoryRoot.appendingPathComponent("Scripts/postgres-throwaway")
        // The script leaves the server (and with --watch a watcher) running: as a SpawnedProcess it gets standard
        // input, output and error only, so the server holds no other test's pipe open (and its reader waiting).
        let outcome = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/bash"), [script.path] + arguments, mergingStandardError: arguments.first != "--watch")
        guard outcome.status == 0 else {
            throw TestPostgresError(description: "Scripts/postgres-throwaway \(arguments.joined(separator: " ")) failed: \(outcome.output)")
        }
        return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
