import Foundation
import Logging
import NIOSSL
import PlantGuideRPC
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
/// away: UNAVAILABLE at once (a probe notices within a second), never a hang, never PostgreSQL's own text.
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
    /// The longest a call waits for the server (a connection, then its statements) before it is UNAVAILABLE.
    let operationTimeout: Duration
    /// How long the server may give no answer at all before it counts as gone.
    let outageAfter: Duration
    private let running: Mutex<Task<Void, Never>?> = Mutex(nil)
    private let reachable = Atomic<Bool>(true)
    /// Probes in a row that got no answer.
    private let probesUnanswered = Atomic<Int>(0)
    /// When the server last answered anything (a probe or a call), in `DispatchTime` nanoseconds.
    private let lastAnswer = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)
    /// The probe's own connection, outside the pool: a pool busy with calls must not look like a server gone.
    private let probeConnection = Mutex<PostgresConnection?>(nil)
    private let probeConfiguration: PostgresConnection.Configuration

    private init(settings: PostgresSettings, logger: Logger, operationTimeout: Duration, outageAfter: Duration,
                 observer: (@Sendable (PostgresQuery) -> Void)?) throws {
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: settings.password,
            database: settings.database, tls: Self.tls(settings.tls))
        configuration.options.maximumConnections = settings.poolSize
        configuration.options.connectTimeout = .seconds(2)
        // Every connection works in the service's schema: its tables need no qualification.
        configuration.options.additionalStartupParameters = [("search_path", settings.schema)]
        var probe = PostgresConnection.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: settings.password,
            database: settings.database, tls: try Self.connectionTLS(settings.tls))
        probe.options.connectTimeout = .seconds(1)
        probeConfiguration = probe
        self.settings = settings
        self.logger = logger
        self.operationTimeout = operationTimeout
        self.outageAfter = outageAfter
        self.observer = observer
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// Starts the pool, waits up to `startupWait` for the server, and brings the service's schema up to date. N
    /// replicas starting together migrate once: each takes an advisory lock named after the schema first.
    /// - Parameters:
    ///   - operationTimeout: how long a call may take before it fails UNAVAILABLE.
    ///   - outageAfter: how long the server may answer nothing at all (probes and calls) before it counts as gone.
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
            } catch let error as RPCError where error.code == .unavailable && clock.now < deadline {
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
        let probe = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                guard !Task.isCancelled else { return }
                await self?.probe()
            }
        }
        running.withLock { task in
            task = Task {
                await withTaskCancellationHandler {
                    await client.run()
                } onCancel: {
                    probe.cancel()
                }
            }
        }
    }

    /// A store released without ``close()`` (a failed start-up, a test that threw) still closes its probe
    /// connection: the driver treats a connection released open as a programming error.
    deinit {
        running.withLock { $0 }?.cancel()
        if let connection = probeConnection.withLock({ $0 }) {
            connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    /// Stops the pool: calls after this fail.
    public func close() async {
        let task = running.withLock { task in defer { task = nil }; return task }
        task?.cancel()
        await task?.value
        try? await probeConnection.withLock { connection in defer { connection = nil }; return connection }?.close()
    }

    /// Whether the server answered lately: health reports NOT_SERVING while it does not.
    public var isReachable: Bool { reachable.load(ordering: .relaxed) }

    /// Asks the server every quarter second, on a connection of the probe's own. The store becomes unreachable
    /// (calls fail at once, health says NOT_SERVING) when two probes in a row got no answer within 0.75 s and
    /// nothing else answered for `outageAfter` (2 s by default) either, so that a machine too busy to answer a probe promptly, while calls
    /// still complete, is not taken for an outage. An outage is so noticed within about 2 s; the first answer
    /// ends it.
    /// A probe refused outright (nothing listens, or the server says it is shutting down or starting) is an outage
    /// at once: calls waiting for a connection then fail instead of waiting for the pool's reconnection attempts.
    private func probe() async {
        var refused = false
        let answered: Bool
        do {
            try await withTimeout(.milliseconds(750)) { try await self.askServer() }
            answered = true
        } catch {
            answered = false
            refused = !(error is TimedOut) && StorageError.isRefusal(error)
        }
        guard !Task.isCancelled else { return }
        if answered { noteAnswer() }
        let unanswered = answered ? 0 : probesUnanswered.wrappingAdd(1, ordering: .relaxed).newValue
        guard answered || refused || (unanswered >= 2 && silence() >= outageAfter) else { return }
        if answered != reachable.exchange(answered, ordering: .relaxed) {
            if answered { logger.notice("PostgreSQL is reachable again") } else { logger.error("PostgreSQL is unreachable") }
        }
    }

    /// Records that the server answered just now (never moving the time back: calls finish in any order).
    private func noteAnswer() {
        probesUnanswered.store(0, ordering: .relaxed)
        lastAnswer.max(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// How long the server has said nothing.
    private func silence() -> Duration {
        let now = DispatchTime.now().uptimeNanoseconds
        return Self.silence(since: lastAnswer.load(ordering: .relaxed), now: now)
    }

    /// The time from `lastAnswer` to `now`, in uptime nanoseconds; zero when another call noted an answer after
    /// `now` was read, which a subtraction of the two would turn into a trap (a service crashed so under load).
    static func silence(since lastAnswer: UInt64, now: UInt64) -> Duration {
        .nanoseconds(Int64(clamping: now > lastAnswer ? now - lastAnswer : 0))
    }

    /// `SELECT 1` on the probe's connection, connecting (again) when there is none or it closed.
    private func askServer() async throws {
        var connection = probeConnection.withLock { $0 }
        if connection == nil || connection!.isClosed {
            connection = try await PostgresConnection.connect(configuration: probeConfiguration, id: 0, logger: logger)
            probeConnection.withLock { $0 = connection }
        }
        do {
            for try await _ in try await connection!.query("SELECT 1", logger: logger) {}
        } catch {
            probeConnection.withLock { $0 = nil }
            try? await connection!.close()
            throw error
        }
    }

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
            noteAnswer()
            return result
        } catch let error as BodyError {
            noteAnswer()
            throw error.error
        } catch let error as PostgresTransactionError {
            if let body = error.closureError as? BodyError { throw body.error }
            let cause = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? error
            throw StorageError.translate(cause, logger: logger, markUnreachable: { reachable.store(false, ordering: .relaxed) })
        } catch is TimedOut {
            logger.warning("a database call gave up", metadata: [
                "reason": "\(isReachable ? "no answer within \(operationTimeout)" : "PostgreSQL became unreachable")",
            ])
            throw StorageError.unavailable
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw StorageError.translate(error, logger: logger, markUnreachable: { reachable.store(false, ordering: .relaxed) })
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

struct TimedOut: Error {}

/// `operation`, or `TimedOut` once `limit` has passed or `giveUp` says so (looked at every 100 ms); the operation is
/// then cancelled, and not waited for: a driver call that ignores cancellation (a pool lease on a server that went
/// away mid-call) must not hold its caller past the limit. It finishes or fails in the background.
func withTimeout<Result: Sendable>(
    _ limit: Duration, giveUpWhen giveUp: @Sendable @escaping () -> Bool = { false }, _ operation: @Sendable @escaping () async throws -> Result
) async throws -> Result {
    let race = FirstResult<Result>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
            let work = Task {
                do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
            }
            let timer = Task {
                let clock = ContinuousClock()
                let end = clock.now + limit
                while clock.now < end && !Task.isCancelled {
                    try? await Task.sleep(for: min(.milliseconds(100), end - clock.now))
                    if giveUp() { break }
                }
                if !Task.isCancelled { race.finish(.failure(TimedOut())) }
            }
            race.onFinish {
                timer.cancel()
                work.cancel()
            }
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The first of several outcomes, handed to one continuation; later ones are dropped.
private final class FirstResult<Result: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result, any Error>?
        /// An outcome that came before the continuation was given (cancellation before the start).
        var early: Swift.Result<Result, any Error>?
        var finished = false
        var onFinish: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<Result, any Error>) {
        let early = state.withLock { state -> Swift.Result<Result, any Error>? in
            guard let early = state.early else {
                state.continuation = continuation
                return nil
            }
            return early
        }
        if let early { continuation.resume(with: early) }
    }

    func onFinish(_ action: @escaping @Sendable () -> Void) {
        let finished = state.withLock { state in
            if !state.finished { state.onFinish = action }
            return state.finished
        }
        if finished { action() }
    }

    func finish(_ outcome: Swift.Result<Result, any Error>) {
        let (continuation, action) = state.withLock { state -> (CheckedContinuation<Result, any Error>?, (@Sendable () -> Void)?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            guard let continuation = state.continuation else {
                state.early = outcome
                return (nil, state.onFinish)
            }
            state.continuation = nil
            return (continuation, state.onFinish)
        }
        continuation?.resume(with: outcome)
        action?()
    }
}
