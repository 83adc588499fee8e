import Foundation
import Logging
import Prometheus
import ServiceLifecycle
import Synchronization

/// A PlantGuide RPC server: a ZeroMQ ROUTER socket serving the methods of some ``RPCService``s, plus health
/// and metrics. The process's RPC I/O thread serves the socket; handlers run as tasks.
///
/// ```swift
/// let server = RPCServer(
///     configuration: .init(bindEndpoint: "tcp://127.0.0.1:0"),
///     services: [CollectionRPCService(store: store)],
///     logger: logger)
/// let endpoint = try server.start()   // "tcp://127.0.0.1:40411"
/// ...
/// await server.shutdown()
/// ```
///
/// As a swift-service-lifecycle `Service`, `run()` starts it and drains it on graceful shutdown.
///
/// `startInProcess()` serves callers of this process only (`RPCClient(inProcess:)`), with no socket, by the same
/// rules: for tests and compositions where the network is not the subject.
public final class RPCServer: Service, Sendable {
    public let configuration: RPCServerConfiguration
    private let router: RPCRouter
    private let services: [any RPCService]
    private let logger: Logger
    private let metrics: ServerMetrics
    private let state = Mutex<State>(.idle)

    private enum State {
        case idle
        /// Binding; `start()` is on its way to `.running` or `.stopped`.
        case starting
        case running(ServerLoop, endpoint: String, finished: [CheckedContinuation<Void, Never>])
        case stopped
    }

    /// - Parameters:
    ///   - configuration: where to bind and the limits.
    ///   - services: the services to host (health and metrics are added).
    ///   - registry: where metrics go and what the metrics method serves; the executable shares it with
    ///     swift-metrics so the services' own metrics appear too.
    ///   - logger: the server's logger; every handler's lines add the request id.
    public init(
        configuration: RPCServerConfiguration,
        services: [any RPCService],
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        logger: Logger
    ) {
        self.configuration = configuration
        self.services = services
        self.logger = logger
        metrics = ServerMetrics(registry: registry)
        var router = RPCRouter()
        for service in services { router.register(service) }
        router.register(MetricsService(metrics: metrics))
        self.router = router.intercepted(by: configuration.interceptors)
    }

    /// The bound endpoint (with the real port when bound to port 0), or nil before `start()`.
    public var endpoint: String? {
        state.withLock { state in
            if case .running(_, let endpoint, _) = state { return endpoint }
            return nil
        }
    }

    /// Binds the socket and starts serving it on the process's RPC I/O thread. Never waits: binding is one quick
    /// system call made here, and the I/O thread takes the bound socket over.
    /// - Returns: the bound endpoint.
    /// - Throws: ``RPCError`` with UNAVAILABLE when the endpoint cannot be bound (address in use, bad endpoint),
    ///   FAILED_PRECONDITION when the server was started before.
    @discardableResult
    public func start() throws -> String {
        try start(binding: true)
    }

    /// Starts serving callers in this process only (``RPCClient/init(inProcess:configuration:)``), with no socket.
    /// - Returns: "in-process", the server's ``endpoint``.
    /// - Throws: ``RPCError`` with FAILED_PRECONDITION when the server was started before.
    @discardableResult
    public func startInProcess() throws -> String {
        try start(binding: false)
    }

    private func start(binding: Bool) throws -> String {
        try state.withLock { state in
            guard case .idle = state else { throw RPCError(.failedPrecondition, "the server was started already") }
            state = .starting
        }
        var router = self.router
        let draining = DrainingFlag()
        let services = self.services
        router.register(HealthService(isServing: { !draining.isSet && services.allSatisfy(\.isReady) }, serviceNames: self.router.serviceNames))
        let loop: ServerLoop
        let endpoint: String
        do {
            loop = try ServerLoop(
                configuration: configuration, router: router, metrics: metrics, draining: draining, logger: logger,
                finished: { [self] in loopFinished() })
            endpoint = binding ? try loop.bind() : Self.inProcessEndpoint
        } catch {
            state.withLock { $0 = .stopped }
            throw RPCError(.unavailable, "cannot bind \(configuration.bindEndpoint): \(error)", cause: error)
        }
        state.withLock { $0 = .running(loop, endpoint: endpoint, finished: []) }
        loop.start()
        logger.info("serving", metadata: ["plantguide.rpc.endpoint": "\(endpoint)"])
        return endpoint
    }

    /// The ``endpoint`` of a server started with ``startInProcess()``.
    public static let inProcessEndpoint = "in-process"

    /// Hands a request envelope of an in-process caller to the running loop; false when the server is not running.
    func serveLocal(_ request: [UInt8], reply: @escaping @Sendable ([UInt8]) -> Void) -> Bool {
        runningLoop?.serveLocal(request, reply: reply) ?? false
    }

    private var runningLoop: ServerLoop? {
        state.withLock { state in
            if case .running(let loop, _, _) = state { return loop }
            return nil
        }
    }

    /// Stops taking calls, lets those in flight finish for up to `grace`, answers the rest UNAVAILABLE, and
    /// closes the socket. Returns when the socket is closed. Safe to call more than once.
    public func shutdown(grace: Duration = .seconds(10)) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow: Bool = state.withLock { state in
                guard case .running(let loop, let endpoint, var finished) = state else { return true }
                finished.append(continuation)
                state = .running(loop, endpoint: endpoint, finished: finished)
                loop.drain(until: MonotonicTime.now().advanced(by: grace))
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Starts the server and serves until graceful shutdown (SIGTERM/SIGINT in a `ServiceGroup`), then drains.
    public func run() async throws {
        if endpoint == nil { try start() }
        try? await gracefulShutdown()
        logger.info("draining")
        await shutdown()
    }

    private func loopFinished() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state = .stopped }
            if case .running(_, _, let finished) = state { return finished }
            return []
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Set once a server starts draining; read by its loop and its health checks.
final class DrainingFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .relaxed) }

    func set() { value.store(true, ordering: .relaxed) }
}
