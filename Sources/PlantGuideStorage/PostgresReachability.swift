import Logging
import PostgresNIO
import Synchronization

/// Whether one PostgreSQL server answers, as every store of this process that uses it with the same patience sees
/// it: one probe connection asks the server, one verdict is logged, and what the stores' calls hear counts too.
///
/// The server counts as gone
/// - at once when it refuses: nothing listens, or it says it is shutting down, starting or full;
/// - when it has answered nothing, neither the probe nor a call, for `outageAfter` of this process's awake time
///   (``ProcessLateness``). Time the process itself spent waiting for a CPU or a thread is not the server's silence:
///   a starved process answers slowly, it does not declare an outage.
///
/// The first answer ends an outage. Stores get their monitor with ``acquire(_:)`` and give it back with
/// ``release()``; the last one out stops the probe.
final class PostgresReachability: Sendable {
    /// What makes two stores share a monitor: the same server and account, and the same patience.
    struct Key: Hashable, Sendable {
        var host: String
        var port: Int
        var database: String
        var user: String
        var outageAfter: Duration
    }

    /// How often the probe asks the server and the verdict is made.
    static let interval = Duration.milliseconds(250)

    private struct State {
        var reachable = true
        /// The server refused since it last answered.
        var refused = false
        /// When the server last answered anything, on the awake clock.
        var lastAnswer: Duration
        /// When the probe in flight was sent, on the awake clock; nil while none is.
        var probeSent: Duration?
        var connection: PostgresConnection?
        var stores = 0
        var running: Task<Void, Never>?
    }

    let key: Key
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let awake = ProcessLateness.shared
    private let state: Mutex<State>
    /// The verdict, read by every call: kept apart from `state` so that a call reads it without a lock.
    private let verdict = Atomic<Bool>(true)

    private static let monitors = Mutex<[Key: PostgresReachability]>([:])

    private init(key: Key, configuration: PostgresConnection.Configuration, logger: Logger) {
        self.key = key
        self.configuration = configuration
        self.logger = logger
        state = Mutex(State(lastAnswer: ProcessLateness.shared.now()))
    }

    /// The monitor of `key`'s server, started by its first store; `configuration` makes its probe's connection
    /// settings, asked only then.
    static func acquire(
        _ key: Key, logger: Logger, configuration: () throws -> PostgresConnection.Configuration
    ) throws -> PostgresReachability {
        ProcessLateness.shared.start()
        let (monitor, first) = try monitors.withLock { monitors in
            if let monitor = monitors[key] {
                monitor.state.withLock { $0.stores += 1 }
                return (monitor, false)
            }
            let monitor = PostgresReachability(key: key, configuration: try configuration(), logger: logger)
            monitor.state.withLock { $0.stores = 1 }
            monitors[key] = monitor
            return (monitor, true)
        }
        if first { monitor.start() }
        return monitor
    }

    /// Gives the monitor back; the last store's release stops the probe and closes its connection.
    func release() {
        let last = Self.monitors.withLock { monitors in
            let remaining = state.withLock { state in
                state.stores -= 1
                return state.stores
            }
            if remaining == 0 { monitors[key] = nil }
            return remaining == 0
        }
        guard last else { return }
        let (task, connection) = state.withLock { state in
            defer { state.running = nil; state.connection = nil }
            return (state.running, state.connection)
        }
        task?.cancel()
        connection?.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Whether the server answers: calls fail at once and health says NOT_SERVING while it does not.
    var isReachable: Bool { verdict.load(ordering: .relaxed) }

    /// The server answered a call (or the probe) just now.
    func noteAnswer() {
        let now = awake.now()
        let changed = state.withLock { state in
            state.lastAnswer = max(state.lastAnswer, now)
            state.refused = false
            return judge(&state, now: now)
        }
        log(changed)
    }

    /// The server refused a call (or the probe): it is gone until it answers again.
    func noteRefusal() {
        let changed = state.withLock { state in
            state.refused = true
            return judge(&state, now: awake.now())
        }
        log(changed)
    }

    /// The time from `lastAnswer` to `now` on the awake clock; zero when an answer was noted after `now` was read.
    static func silence(since lastAnswer: Duration, now: Duration) -> Duration {
        max(.zero, now - lastAnswer)
    }

    private func start() {
        let task = Task { [self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.probing() }
                group.addTask { await self.judging() }
            }
        }
        state.withLock { $0.running = task }
    }

    /// Asks the server `SELECT 1` every ``interval``, on a connection of the probe's own: a pool busy with calls
    /// must not look like a server gone. A query waits as long as the server takes; ``judging()`` decides meanwhile.
    private func probing() async {
        while !Task.isCancelled {
            do {
                try await askServer()
                noteAnswer()
            } catch {
                if StorageError.isRefusal(error) { noteRefusal() }
                dropConnection()
            }
            try? await Task.sleep(for: Self.interval)
        }
    }

    /// Makes the verdict every ``interval``; gives up a probe that has waited for twice the patience (a host lost
    /// without a word keeps a connection open for minutes), so that a new connection finds the server when it is back.
    private func judging() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.interval)
            let now = awake.now()
            let (changed, abandon) = state.withLock { state in
                let abandon = state.probeSent.map { now - $0 > key.outageAfter * 2 } ?? false
                return (judge(&state, now: now), abandon)
            }
            log(changed)
            if abandon { dropConnection() }
        }
    }

    /// Sets the verdict from `state`; returns it when it changed.
    private func judge(_ state: inout State, now: Duration) -> Bool? {
        let reachable = !state.refused && Self.silence(since: state.lastAnswer, now: now) < key.outageAfter
        guard reachable != state.reachable else { return nil }
        state.reachable = reachable
        verdict.store(reachable, ordering: .relaxed)
        return reachable
    }

    private func log(_ changed: Bool?) {
        switch changed {
        case true?: logger.notice("PostgreSQL is reachable again", metadata: ["database": "\(key.host):\(key.port)"])
        case false?: logger.error("PostgreSQL is unreachable", metadata: ["database": "\(key.host):\(key.port)"])
        case nil: break
        }
    }

    /// `SELECT 1` on the probe's connection, connecting (again) when there is none or it closed.
    private func askServer() async throws {
        state.withLock { $0.probeSent = awake.now() }
        defer { state.withLock { $0.probeSent = nil } }
        var connection = state.withLock { $0.connection }
        if connection == nil || connection!.isClosed {
            let new = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            guard !Task.isCancelled else {  // released while it connected
                try? await new.close()
                throw CancellationError()
            }
            state.withLock { $0.connection = new }
            connection = new
        }
        for try await _ in try await connection!.query("SELECT 1", logger: logger) {}
    }

    /// Closes the probe's connection (a query waiting on it fails), so that the next probe connects anew.
    private func dropConnection() {
        let connection = state.withLock { state in
            defer { state.connection = nil }
            return state.connection
        }
        connection?.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }
}
