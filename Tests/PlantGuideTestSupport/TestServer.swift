import Foundation
import Synchronization
import Logging
import PlantGuideProtos
import PlantGuideRPC

/// Methods for RPC tests, served by ``TestServer``. They reuse contract messages so no test-only .proto is
/// needed: Echo answers a HealthCheckRequest's `service` string back as a ScrapeResponse's `text`.
public enum TestMethods {
    /// Echoes `service` into `text`, prefixed by the server's name: "name:value".
    public static let echo = RPCMethod<Plantguide_Health_V1_HealthCheckRequest, Plantguide_Metrics_V1_ScrapeResponse>(
        path: "/plantguide.test.v1.Test/Echo", isIdempotent: true)
    /// Sleeps `service` milliseconds, honouring cancellation, then answers.
    public static let sleep = RPCMethod<Plantguide_Health_V1_HealthCheckRequest, Plantguide_Metrics_V1_ScrapeResponse>(
        path: "/plantguide.test.v1.Test/Sleep", isIdempotent: false)
    /// Waits until the test opens the ``TestGate`` named by `service` (honouring cancellation), then answers: a
    /// handler that holds its slot for exactly as long as the test wants.
    public static let gate = RPCMethod<Plantguide_Health_V1_HealthCheckRequest, Plantguide_Metrics_V1_ScrapeResponse>(
        path: "/plantguide.test.v1.Test/Gate", isIdempotent: false)
    /// Answers the name of the thread its handler runs on; the server's handler execution decides where.
    public static let threadName = RPCMethod<Plantguide_Health_V1_HealthCheckRequest, Plantguide_Metrics_V1_ScrapeResponse>(
        path: "/plantguide.test.v1.Test/ThreadName", isIdempotent: true)
    /// The same, for a method registered to run on the RPC I/O thread whatever the server's default.
    public static let threadNameOnIOThread = RPCMethod<Plantguide_Health_V1_HealthCheckRequest, Plantguide_Metrics_V1_ScrapeResponse>(
        path: "/plantguide.test.v1.Test/ThreadNameOnIOThread", isIdempotent: true)
    /// Throws the status whose number is in `service`, with message "asked for it".
    public static let fail = RPCMethod<Plantguide_Health_V1_HealthCheckRequest, Plantguide_Metrics_V1_ScrapeResponse>(
        path: "/plantguide.test.v1.Test/Fail", isIdempotent: false)
}

/// The ``TestMethods`` as a service.
public struct TestService: RPCService {
    public let name: String

    public init(name: String) { self.name = name }

    public func registerMethods(with router: inout RPCRouter) {
        let name = self.name
        router.register(TestMethods.echo) { request, _ in
            .with { $0.text = "\(name):\(request.service)" }
        }
        router.register(TestMethods.sleep) { request, _ in
            try await Task.sleep(for: .milliseconds(Int(request.service) ?? 0))
            return .with { $0.text = "\(name):slept" }
        }
        router.register(TestMethods.gate) { request, _ in
            TestGate.enter(request.service)
            while !TestGate.isOpen(request.service) { try await Task.sleep(for: .milliseconds(5)) }
            return .with { $0.text = "\(name):passed" }
        }
        router.register(TestMethods.threadName) { _, _ in
            .with { $0.text = currentThreadName() }
        }
        router.register(TestMethods.threadNameOnIOThread, runsOn: .ioThread) { _, _ in
            .with { $0.text = currentThreadName() }
        }
        router.register(TestMethods.fail) { request, _ in
            let code = RPCError.Code(rawValue: Int(request.service) ?? 2) ?? .unknown
            throw RPCError(code, "asked for it")
        }
    }
}

/// The name the system knows the calling thread by (what `top -H` shows).
public func currentThreadName() -> String {
    let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
    return comm.trimmingCharacters(in: .newlines)
}

/// An in-process server with ``TestService`` on an ephemeral loopback port, shut down when the test ends in a
/// `.cleansUp` suite (see ``TestResources``).
public enum TestServer {
    public static func start(
        name: String = "s", configure: (inout RPCServerConfiguration) -> Void = { _ in }
    ) throws -> (server: RPCServer, endpoint: String) {
        let server = make(name: name, configure: configure)
        let endpoint = try server.start()
        TestResources.track(server)
        return (server, endpoint)
    }

    /// A started server and a client of it over `transport`: the RPC conformance tests run over each.
    public static func connected(
        _ transport: TestTransport, name: String = "s", configure: (inout RPCServerConfiguration) -> Void = { _ in }
    ) throws -> (server: RPCServer, client: RPCClient) {
        switch transport {
        case .zeroMQ:
            let (server, endpoint) = try start(name: name, configure: configure)
            return (server, try RPCClient(target: endpoint, configuration: .forTests))
        case .inProcess:
            let server = make(name: name, configure: configure)
            try server.startInProcess()
            TestResources.track(server)
            return (server, RPCClient(inProcess: server, configuration: .forTests))
        }
    }

    private static func make(name: String, configure: (inout RPCServerConfiguration) -> Void) -> RPCServer {
        var configuration = RPCServerConfiguration(bindEndpoint: "tcp://127.0.0.1:0")
        configure(&configuration)
        var logger = Logger(label: "test-server-\(name)")
        logger.logLevel = .warning
        return RPCServer(configuration: configuration, services: [TestService(name: name)], logger: logger)
    }
}

/// How a test's client reaches its server: over ZeroMQ sockets on loopback, or in process with no socket.
public enum TestTransport: String, CaseIterable, Sendable, CustomStringConvertible {
    case zeroMQ = "ZeroMQ"
    case inProcess = "in-process"

    public var description: String { rawValue }
}

/// Named gates that ``TestMethods/gate`` handlers of this process wait at until the test opens them.
public enum TestGate {
    private static let opened = Mutex<Set<String>>([])
    private static let entered = Mutex<Set<String>>([])

    public static func open(_ name: String) { opened.withLock { _ = $0.insert(name) } }

    /// Waits until a handler has reached gate `name`: its call is then in flight at the server, however late a busy
    /// machine ran it.
    public static func waitUntilEntered(_ name: String) async throws {
        while !entered.withLock({ $0.contains(name) }) { try await Task.sleep(for: .milliseconds(5)) }
    }

    static func enter(_ name: String) { entered.withLock { _ = $0.insert(name) } }

    static func isOpen(_ name: String) -> Bool { opened.withLock { $0.contains(name) } }
}
