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
        router.register(TestMethods.fail) { request, _ in
            let code = RPCError.Code(rawValue: Int(request.service) ?? 2) ?? .unknown
            throw RPCError(code, "asked for it")
        }
    }
}

/// An in-process server with ``TestService`` on an ephemeral loopback port, shut down when the test ends in a
/// `.cleansUp` suite (see ``TestResources``).
public enum TestServer {
    public static func start(
        name: String = "s", configure: (inout RPCServerConfiguration) -> Void = { _ in }
    ) throws -> (server: RPCServer, endpoint: String) {
        var configuration = RPCServerConfiguration(bindEndpoint: "tcp://127.0.0.1:0")
        configure(&configuration)
        var logger = Logger(label: "test-server-\(name)")
        logger.logLevel = .warning
        let server = RPCServer(configuration: configuration, services: [TestService(name: name)], logger: logger)
        let endpoint = try server.start()
        TestResources.track(server)
        return (server, endpoint)
    }
}
