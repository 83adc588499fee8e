import ArgumentParser
import Foundation
import Logging
import Metrics
import PlantGuideRPC
import Prometheus
import ServiceLifecycle

/// What a service's factory gets to build its ``RPCService``s.
public struct ServiceEnvironment: Sendable {
    /// The service's data folder (created).
    public let dataDirectory: URL
    /// The service's logger.
    public let logger: Logger
    /// The service's metrics in Prometheus' text format, as `/plantguide.metrics.v1.Metrics/Scrape` answers them
    /// (for fronts other than RPC, such as the gateway's HTTP /metrics).
    public let scrapeMetrics: @Sendable () -> String
}

/// Runs one PlantGuide service until SIGTERM or SIGINT: sets up logging and metrics, creates the data folder,
/// serves the services `makeServices` builds plus health and metrics, and drains on shutdown.
///
/// Executables call this from `main`; libraries never do (they never bootstrap logging or metrics).
/// Each service places its own handlers (``RPCService/handlerExecution``); the server's default is the global pool.
/// - Parameter makeServices: the RPC services to serve, and any long-running work beside them.
public func runService(
    name: String,
    options: ResolvedServiceOptions,
    makeServices: (ServiceEnvironment) async throws -> ServiceSet
) async throws {
    let level = options.logLevel
    switch options.logFormat {
    case .text:
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    case .json:
        LoggingSystem.bootstrap { label in
            var handler = JSONLogHandler(service: name, label: label)
            handler.logLevel = level
            return handler
        }
    }
    let registry = PrometheusCollectorRegistry()
    MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    let logger = Logger(label: name)
    let tracing: (any Service)?
    do {
        tracing = try ServiceTracing.bootstrap(service: name)
    } catch {
        logger.critical("cannot set up trace export", metadata: ["error": "\(error)"])
        throw ExitCode(78)  // EX_CONFIG
    }

    do {
        try FileManager.default.createDirectory(at: options.dataDirectory, withIntermediateDirectories: true)
    } catch {
        logger.critical("cannot create the data folder", metadata: ["path": "\(options.dataDirectory.path)", "error": "\(error)"])
        throw ExitCode(73)  // EX_CANTCREAT
    }
    let made = try await makeServices(ServiceEnvironment(
        dataDirectory: options.dataDirectory, logger: logger, scrapeMetrics: { registry.emitToString() }))

    var configuration = RPCServerConfiguration(bindEndpoint: options.bind)
    configuration.maxMessageSize = options.maxMessageSize
    configuration.maxConcurrentCalls = options.maxConcurrentCalls
    configuration.maxQueuedCalls = options.maxQueuedCalls
    configuration.curve = options.curve
    let server = RPCServer(configuration: configuration, services: made.rpc, registry: registry, logger: logger)
    // A group shuts its services down last to first: the server comes last so that it stops taking calls the
    // moment the signal arrives, and drains while background work (a reminder dispatcher) winds down after it.
    // Whatever still runs a second past the grace is cancelled. The server starts inside the group, once its
    // signal handlers are in place: a SIGTERM right after the first call is answered must stop it cleanly, not
    // kill it (a test that stopped a service as soon as it was ready found that window).
    // The trace exporter comes first, so that it is stopped last, after the spans of the last calls.
    var group = ServiceGroupConfiguration(
        services: (tracing.map { [.init(service: $0)] } ?? [])
            + made.background.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) }
            + [.init(service: ShutdownDrain(server: server, grace: options.shutdownGrace, logger: logger))],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger)
    group.maximumGracefulShutdownDuration = options.shutdownGrace + .seconds(1)
    do {
        try await ServiceGroup(configuration: group).run()
    } catch is ShutdownDrain.CannotStart {
        throw ExitCode(69)  // EX_UNAVAILABLE
    }
    logger.info("stopped")
}

/// What a service executable runs: RPC services, and long-running work beside them (a dispatcher loop) that is
/// stopped on shutdown. An array literal of RPC services is a set without background work.
public struct ServiceSet: ExpressibleByArrayLiteral {
    public var rpc: [any RPCService]
    public var background: [any Service]

    public init(rpc: [any RPCService], background: [any Service] = []) {
        self.rpc = rpc
        self.background = background
    }

    public init(arrayLiteral elements: any RPCService...) {
        self.init(rpc: elements)
    }
}

/// Waits for graceful shutdown, then drains the server for up to `grace`.
private struct ShutdownDrain: Service {
    let server: RPCServer
    let grace: Duration
    let logger: Logger

    /// The server could not start (its address taken, say): the executable exits 69.
    struct CannotStart: Error {}

    func run() async throws {
        do {
            try server.start()
        } catch {
            logger.critical("cannot start", metadata: ["error": "\(error)"])
            throw CannotStart()
        }
        try? await gracefulShutdown()
        await server.shutdown(grace: grace)
    }
}

