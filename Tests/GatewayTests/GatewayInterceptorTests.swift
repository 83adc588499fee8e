import Foundation
@testable import Gateway
import Logging
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

/// The gateway's two interceptors on their own, through the in-process transport: the caller made from a call's
/// token before its method runs, and the caller's metadata on every call the gateway makes downstream.
@Suite("Gateway interceptors: the caller in, the caller's metadata out", .cleansUp)
struct GatewayInterceptorTests {
    typealias Methods = Plantguide_Gateway_V1_GatewayService
    typealias Echo = RPCMethod<Plantguide_Health_V1_HealthCheckRequest, Plantguide_Metrics_V1_ScrapeResponse>
    /// Answers the user id and trace id of its metadata, and the milliseconds left of its deadline.
    static let echo = Echo(path: "/plantguide.test.v1.Echo/Metadata", isIdempotent: true)

    struct EchoService: RPCService {
        func registerMethods(with router: inout RPCRouter) {
            router.register(GatewayInterceptorTests.echo) { _, context in
                .with {
                    $0.text = "\(context.metadata[RPCServerContext.userIDKey] ?? "-") \(context.metadata[RPCServerContext.traceIDKey] ?? "-")"
                    $0.contentType = "\(Int(context.timeRemaining / .milliseconds(1)))"
                }
            }
        }
    }

    @Test("a call made for a caller carries its id, its trace id and what is left of its deadline; one made for none carries none")
    func callerMetadata() async throws {
        var logger = Logger(label: "echo")
        logger.logLevel = .critical
        let server = RPCServer(configuration: .init(bindEndpoint: "tcp://127.0.0.1:0"), services: [EchoService()], logger: logger)
        try server.startInProcess()
        TestResources.track(server)
        let client = RPCClient(inProcess: server, configuration: .forTests, interceptors: Downstream.interceptors)
        defer { client.close() }

        // 30 s: well inside the test client's own default (60 s or more), and long enough beside the whole suite.
        let ana = Caller(id: "ana", deadline: .now + .seconds(30), traceID: "4bf92f3577b34da6a3ce929d0e0e4736")
        let answered = try await Caller.$current.withValue(ana) { try await client.call(Self.echo, .init()) }
        #expect(answered.text == "ana 4bf92f3577b34da6a3ce929d0e0e4736")
        let left = try #require(Int(answered.contentType))
        #expect(left > 0 && left <= 30_000, "the call had \(left) ms")

        let anonymous = try await client.call(Self.echo, .init())
        #expect(anonymous.text == "- -")
        #expect(try #require(Int(anonymous.contentType)) > 30_000, "without a caller the client's own default deadline")
    }

    @Test("a method that needs a caller is refused before it runs without a valid token; sign-up needs none")
    func callerAuthentication() async throws {
        let gateway = try InProcessGateway()
        let token = try await gateway.signUp("ines")

        #expect(try await gateway.call(Methods.listPlants, .init(), token: token).page.plants.isEmpty)
        #expect(await rpcErrorCode { _ = try await gateway.call(Methods.listPlants, .init(), token: "pg_not-a-token") } == .unauthenticated)
        #expect(await rpcErrorCode { _ = try await gateway.client.call(Methods.listPlants, .init()) } == .unauthenticated)
        let sharedWithNobody = await rpcErrorCode {
            _ = try await gateway.client.call(Methods.listPlants, .init(), options: .init(metadata: [
                "authorization": "Bearer \(token)", CallerAuthenticator.collectionOwnerKey: "someone-else",
            ]))
        }
        #expect(sharedWithNobody == .permissionDenied)
    }
}
