import Foundation
import Logging
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Synchronization
import Testing

/// Server and client interceptors, each through the in-process transport: their order, a refusal, metadata added
/// to every call, and the deadline a handler's own calls inherit.
@Suite("RPC interceptors", .cleansUp)
struct InterceptorTests {
    typealias Method = RPCMethod<Plantguide_Health_V1_HealthCheckRequest, Plantguide_Metrics_V1_ScrapeResponse>
    /// Answers the metadata value named by `service`, and the milliseconds left of the call's deadline.
    static let metadata = Method(path: "/plantguide.test.v1.Interceptors/Metadata", isIdempotent: true)
    /// Calls `metadata` on the downstream server (the service's client) with no timeout of its own.
    static let relay = Method(path: "/plantguide.test.v1.Interceptors/Relay", isIdempotent: true)

    struct Service: RPCService {
        let downstream: RPCClient?

        func registerMethods(with router: inout RPCRouter) {
            router.register(InterceptorTests.metadata) { request, context in
                .with {
                    $0.text = context.metadata[request.service] ?? "-"
                    $0.contentType = "\(Int(context.timeRemaining / .milliseconds(1)))"
                }
            }
            router.register(InterceptorTests.relay) { request, _ in
                guard let downstream else { throw RPCError(.failedPrecondition, "no downstream") }
                return try await downstream.call(InterceptorTests.metadata, request)
            }
        }
    }

    /// Notes its name in `log` on the way in and on the way out.
    struct Noting: RPCServerInterceptor, RPCClientInterceptor {
        let name: String
        let log: Log
        /// Both protocols give a default; an interceptor of both kinds says it once for both.
        var isActive: Bool { true }

        func intercept(_ call: RPCServerCall, next: RPCServerCall.Next) async throws -> RPCServerResponse {
            log.entries.withLock { $0.append("\(name) in") }
            defer { log.entries.withLock { $0.append("\(name) out") } }
            return try await next(call)
        }

        func intercept(_ call: RPCClientCall, next: RPCClientCall.Next) async throws -> RPCReply<Data> {
            log.entries.withLock { $0.append("\(name) in") }
            defer { log.entries.withLock { $0.append("\(name) out") } }
            return try await next(call)
        }
    }

    /// Refuses every call without `x-key` metadata, as an authentication interceptor would.
    struct RequireKey: RPCServerInterceptor {
        func intercept(_ call: RPCServerCall, next: RPCServerCall.Next) async throws -> RPCServerResponse {
            guard call.context.metadata["x-key"] == "open sesame" else { throw RPCError(.permissionDenied, "no key") }
            return try await next(call)
        }
    }

    /// Adds `x-key` to every call.
    struct AddKey: RPCClientInterceptor {
        func intercept(_ call: RPCClientCall, next: RPCClientCall.Next) async throws -> RPCReply<Data> {
            var call = call
            call.options.metadata["x-key"] = "open sesame"
            return try await next(call)
        }
    }

    final class Log: Sendable {
        let entries = Mutex<[String]>([])
        var all: [String] { entries.withLock { $0 } }
    }

    static func server(_ interceptors: [any RPCServerInterceptor], downstream: RPCClient? = nil) throws -> RPCServer {
        var configuration = RPCServerConfiguration(bindEndpoint: "tcp://127.0.0.1:0")
        configuration.interceptors = interceptors
        var logger = Logger(label: "test-interceptors")
        logger.logLevel = .critical
        let server = RPCServer(configuration: configuration, services: [Service(downstream: downstream)], logger: logger)
        try server.startInProcess()
        TestResources.track(server)
        return server
    }

    @Test("server interceptors run in the order given, around the handler; probes pass by them")
    func serverOrder() async throws {
        let log = Log()
        let server = try Self.server([Noting(name: "a", log: log), Noting(name: "b", log: log)])
        let client = RPCClient(inProcess: server, configuration: .forTests)
        defer { client.close() }

        _ = try await client.call(Self.metadata, .with { $0.service = "x" })
        #expect(log.all == ["a in", "b in", "b out", "a out"])
        _ = try await client.call(Plantguide_Health_V1_Health.check, .init())
        #expect(log.all.count == 4, "a health check is a probe: no interceptor sees it")
    }

    @Test("a server interceptor refuses a call before its handler; a client interceptor adds the metadata it needs")
    func refusalAndMetadata() async throws {
        let server = try Self.server([RequireKey()])
        let bare = RPCClient(inProcess: server, configuration: .forTests)
        let keyed = RPCClient(inProcess: server, configuration: .forTests, interceptors: [AddKey()])
        defer {
            bare.close()
            keyed.close()
        }

        let refused = await #expect(throws: RPCError.self) { _ = try await bare.call(Self.metadata, .with { $0.service = "x-key" }) }
        #expect(refused?.code == .permissionDenied && refused?.message == "no key")
        #expect(try await keyed.call(Self.metadata, .with { $0.service = "x-key" }).text == "open sesame")
    }

    @Test("client interceptors run in the order given, around the transport")
    func clientOrder() async throws {
        let log = Log()
        let server = try Self.server([])
        let client = RPCClient(inProcess: server, configuration: .forTests,
                               interceptors: [Noting(name: "a", log: log), Noting(name: "b", log: log)])
        defer { client.close() }

        _ = try await client.call(Self.metadata, .with { $0.service = "x" })
        #expect(log.all == ["a in", "b in", "b out", "a out"])
    }

    @Test("a handler's own calls inherit what is left of its deadline, and are not sent once it has passed")
    func deadlinePropagation() async throws {
        let downstreamServer = try Self.server([])
        let downstream = RPCClient(inProcess: downstreamServer, configuration: .forTests, interceptors: [ClientDeadlineInterceptor()])
        let server = try Self.server([ServerDeadlineInterceptor()], downstream: downstream)
        let client = RPCClient(inProcess: server, configuration: .forTests)
        defer {
            client.close()
            downstream.close()
        }

        // The downstream client's own default is longer (60 s or more): the 30 s of the first call bound the second.
        let relayed = try await client.call(Self.relay, .with { $0.service = "x" }, options: .init(timeout: .seconds(30)))
        let left = try #require(Int(relayed.contentType))
        #expect(left > 0 && left <= 30_000, "the downstream call had \(left) ms")
        #expect(try #require(Int(try await downstream.call(Self.metadata, .init()).contentType)) > 30_000,
                "outside a handler a call keeps the client's default")

        let late = await #expect(throws: RPCError.self) {
            try await RPCDeadline.$current.withValue(.now - .seconds(1)) { _ = try await downstream.call(Self.metadata, .init()) }
        }
        #expect(late?.code == .deadlineExceeded)
    }
}
