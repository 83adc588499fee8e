import Foundation
import Logging
import NIOSSL
import PlantGuideRPCCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// One versioned step of a service's PostgreSQL schema: statements run in one transaction, recorded by number.
public struct PostgresMigration: Sendable {
    public var version: Int
    public var name: String
    public var statements: [String]

    public init(_ version: Int, _ name: String, _ statements: [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }
}

/// A service's PostgreSQL store: a connection pool (postgres-nio, async: nothing here blocks a thread) whose
/// connections work in the service's schema, the schema's migrations, and what callers see when the server is
/// away: UNAVAILABLE at once (the process's probe notices within `outageAfter`, a refusal at once), never a hang,
/// never PostgreSQL's own text. A process too busy to hear the server is not an outage: patience is measured on
/// the awake clock (``ProcessLateness``).
///
/// ```swift
/// let database = try await PostgresStorage.open(settings, migrations: PostgresCareEntries.migrations, logger: logger)
/// let rows = try await database.read { session in try await session.all("SELECT key FROM care_entry", as: String.self) }
/// ```
public final class PostgresStorage: Sendable {
    public let settings: PostgresSettings
    let client: PostgresClient
    /// Told every statement a store runs (tests check their plans).
    let observer: (@Sendable (PostgresQuery) -> Void)?
    let logger: Logger
    /// The longest a call waits for the server (a connection, then its statements) before it is UNAVAILABLE, on the
    /// awake clock.
    let operationTimeout: Duration
    private let running: Mutex<Task<Void, Never>?> = Mutex(nil)
    /// Whether the server answers, shared with the process's other stores of the same server and patience.
    private let reachability: PostgresReachability
    private let released = Atomic<Bool>(false)

    private init(settings: PostgresSettings, logger: Logger, operationTimeout: Duration, outageAfter: Duration,
                 observer: (@Sendable (PostgresQuery) -> Void)?) throws {
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: settings.password,
            database: settings.database, tls: Self.tls(settings.tls))
        configuration.options.maximumConnections = settings.poolSize
        configuration.options.connectTimeout = .seconds(2)
        // Every connection works in the service's schema: its tables need no qualification.
        configuration.options.additionalStartupParameters = [("search_path", settings.schema)]
        // The probe's connection is made only by the first store of its server: the others share its monitor.
        reachability = try PostgresReachability.acquire(
            .init(host: settings.host, port: settings.port, database: settings.database, user: settings.user, outageAfter: outageAfter),
            logger: logger
        ) {
            var probe = PostgresConnection.Configuration(
                host: settings.host, port: settings.port, username: settings.user, password: settings.password,
                database: settings.database, tls: try Self.connectionTLS(settings.tls))
            probe.options.connectTimeout = .seconds(1)
            return probe
        }
        self.settings = settings
        self.logger = logger
        self.operationTimeout = operationTimeout
        self.observer = observer
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// Starts the pool, waits up to `startupWait` for the server, and brings the service's schema up to date. N
    /// replicas starting together migrate once: each takes an advisory lock named after the schema first.
    /// - Parameters:
    ///   - operationTimeout: how long a call may take before it fails UNAVAILABLE.
    ///   - outageAfter: how long the server may answer nothing at all (probes and calls) before it counts as gone.
    ///     Both are measured on the awake clock: time this process waited for a CPU or a thread does not count.
    ///   - observer: told every statement the stores run through ``read(_:)`` and ``write(_:)`` (the query plan
    ///     tests use it).
    public static func open(
        _ settings: PostgresSettings, migrations: [PostgresMigration], logger: Logger,
        startupWait: Duration = .seconds(30), operationTimeout: Duration = .seconds(5), outageAfter: Duration = .seconds(2),
        observer: (@Sendable (PostgresQuery) -> Void)? = nil
    ) async throws -> PostgresStorage {
        let database = try PostgresStorage(settings: settings, logger: logger, operationTimeout: operationTimeout, outageAfter: outageAfter,
                                           observer: observer)
        database.start()
        let clock = ContinuousClock()
        let deadline = clock.now + startupWait
        while true {
            do {
                try await database.migrate(migrations)
                return database
            } catch let error as StorageError where error.kind == .unavailable && clock.now < deadline {
                logger.warning("PostgreSQL is not reachable yet; retrying", metadata: ["database": "\(settings)"])
                try await Task.sleep(for: .seconds(1))
            } catch {
                await database.close()
                throw error
            }
        }
    }

    private func start() {
        let client = self.client
        running.withLock { task in
            task = Task { await client.run() }
        }
    }

    /// A store released without ``close()`` (a failed start-up, a test that threw) still gives its monitor back.
    deinit {
        running.withLock { $0 }?.cancel()
        releaseReachability()
    }

    private func releaseReachability() {
        if !released.exchange(true, ordering: .relaxed) { reachability.release() }
    }

    /// Stops the pool: calls after this fail.
    public func close() async {
        let task = running.withLock { task in defer { task = nil }; return task }
        task?.cancel()
        await task?.value
        releaseReachability()
    }

    /// Whether the server answered lately (``PostgresReachability``): health reports NOT_SERVING while it does not.
    public var isReachable: Bool { reachability.isReachable }

    /// Runs `body` on a pooled connection (reads: each statement sees what was committed before it).
    public func read<Result: Sendable>(_ body: @Sendable @escaping (PostgresSession) async throws -> Result) async throws -> Result {
        try await DatabaseSpan.traced("postgresql", "read") {
            try await guarded {
                try await self.client.withConnection { connection in
                    try await self.run(body, on: connection)
                }
            }
        }
    }

    /// Runs `body` in a transaction, committed when it returns and rolled back when it throws.
    public func write<Result: Sendable>(_ body: @Sendable @escaping (PostgresSession) async throws -> Result) async throws -> Result {
        try await DatabaseSpan.traced("postgresql", "write") {
            try await guarded {
                try await self.client.withTransaction(logger: self.logger) { connection in
                    try await self.run(body, on: connection)
                }
            }
        }
    }

    /// `body` on `connection`, its own errors kept apart from the driver's.
    private func run<Result>(_ body: (PostgresSession) async throws -> Result, on connection: PostgresConnection) async throws -> Result {
        try await Self.boxingErrors { try await body(PostgresSession(connection: connection, logger: logger, observer: observer)) }
    }

    /// An error a store's own code threw (a domain error such as NOT_FOUND), kept apart from the driver's.
    private struct BodyError: Error {
        var error: any Error
    }

    private static func boxingErrors<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let error as PSQLError {
            throw error
        } catch {
            throw BodyError(error: error)
        }
    }

    /// The operation, failing fast while the server is unreachable (also when it becomes so while the operation
    /// waits) and after `operationTimeout`, with the driver's errors turned into the caller's terms and the
    /// store's own errors passed through unchanged.
    private func guarded<Result: Sendable>(_ operation: @Sendable @escaping () async throws -> Result) async throws -> Result {
        guard isReachable else {
            logger.debug("a database call refused: PostgreSQL is unreachable")
            throw StorageError.unavailable
        }
        do {
            let result = try await withTimeout(operationTimeout, giveUpWhen: { !self.isReachable }, operation)
            reachability.noteAnswer()
            return result
        } catch let error as BodyError {
            reachability.noteAnswer()
            throw error.error
        } catch let error as PostgresTransactionError {
            if let body = error.closureError as? BodyError { throw body.error }
            let cause = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? error
            throw StorageError.translate(cause, logger: logger, noteRefusal: reachability.noteRefusal)
        } catch is TimedOut {
            logger.warning("a database call gave up", metadata: [
                "reason": "\(isReachable ? "no answer within \(operationTimeout)" : "PostgreSQL became unreachable")",
            ])
            throw StorageError.unavailable
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw StorageError.translate(error, logger: logger, noteRefusal: reachability.noteRefusal)
        }
    }

    /// Brings the schema up to date, under the schema's advisory lock.
    func migrate(_ migrations: [PostgresMigration]) async throws {
        let schema = settings.schema
        let lock = "plantguide-migrations-" + schema
        try await guarded {
            try await self.client.withConnection { connection in
                try await connection.query("SELECT pg_advisory_lock(hashtext(\(lock)))", logger: self.logger)
                do {
                    try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \"\(schema)\""), logger: self.logger)
                    try await connection.query("""
                        CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
                                                                      applied_at timestamptz NOT NULL DEFAULT now())
                        """, logger: self.logger)
                    var applied: Set<Int> = []
                    for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: self.logger)
                        .decode(Int.self) {
                        applied.insert(version)
                    }
                    for migration in migrations.sorted(by: { $0.version < $1.version }) where !applied.contains(migration.version) {
                        try await connection.withTransaction(logger: self.logger) { connection in
                            for statement in migration.statements {
                                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                            }
                            try await connection.query(
                                "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: self.logger)
                        }
                        self.logger.info("migrated", metadata: ["schema": "\(schema)", "migration": "\(migration.name)"])
                    }
                } catch {
                    _ = try? await connection.query("SELECT pg_advisory_unlock(hashtext(\(lock)))", logger: self.logger)
                    throw error
                }
                try await connection.query("SELECT pg_advisory_unlock(hashtext(\(lock)))", logger: self.logger)
            }
        }
    }

    /// The probe connection's TLS; throws when the system's TLS setup cannot make a client context.
    private static func connectionTLS(_ mode: PostgresSettings.TLSMode) throws -> PostgresConnection.Configuration.TLS {
        switch mode {
        case .disable: .disable
        case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }

    private static func tls(_ mode: PostgresSettings.TLSMode) -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
    }
}

/// The maintenance of a PostgreSQL store while its service runs: closes the pool at shutdown, after the calls in
/// flight (it runs first in a service group's list, so it stops last).
public struct PostgresStorageService: Service {
    let database: PostgresStorage

    public init(_ database: PostgresStorage) {
        self.database = database
    }

    public func run() async throws {
        try? await gracefulShutdown()
        await database.close()
    }
}
