import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("The process's RPC I/O thread", .cleansUp)
struct IOThreadTests {
    static let ioThreadName = "plantguide-rpc"

    @Test("a method registered to run on the I/O thread runs there whatever the server's default; the others follow the server",
          arguments: TestTransport.allCases, [RPCServerConfiguration.HandlerExecution.globalPool, .ioThread])
    func perMethodExecution(transport: TestTransport, serverDefault: RPCServerConfiguration.HandlerExecution) async throws {
        let (server, client) = try TestServer.connected(transport) { $0.handlerExecution = serverDefault }
        defer { client.close() }

        let inline = try await client.call(TestMethods.threadNameOnIOThread, .init())
        let following = try await client.call(TestMethods.threadName, .init())

        #expect(inline.text == Self.ioThreadName)
        if serverDefault == .ioThread {
            #expect(following.text == Self.ioThreadName)
        } else {
            #expect(following.text != Self.ioThreadName)
        }
        await server.shutdown()
    }

    @Test("a handler on the I/O thread that calls two servers of the same process at once, as the gateway does, gets both replies there",
          arguments: TestTransport.allCases)
    func fanOutFromTheIOThread(transport: TestTransport) async throws {
        let (downstreamA, endpointA) = try TestServer.start(name: "a")
        let (downstreamB, endpointB) = try TestServer.start(name: "b")
        let clientA = try RPCClient(target: endpointA, configuration: .forTests)
        let clientB = try RPCClient(target: endpointB, configuration: .forTests)
        defer {
            clientA.close()
            clientB.close()
        }
        let front = RPCServer(
            configuration: {
                var configuration = RPCServerConfiguration(bindEndpoint: "tcp://127.0.0.1:0")
                configuration.handlerExecution = .ioThread
                return configuration
            }(),
            services: [FanOutService(first: clientA, second: clientB)], logger: .init(label: "fan-out"))
        let client: RPCClient
        switch transport {
        case .zeroMQ: client = try RPCClient(target: try front.start(), configuration: .forTests)
        case .inProcess:
            try front.startInProcess()
            client = RPCClient(inProcess: front, configuration: .forTests)
        }
        TestResources.track(front)
        defer { client.close() }

        let replies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<200 {
                group.addTask {
                    (index, try await client.call(FanOutService.method, .with { $0.service = "\(index)" }).text)
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }

        #expect(replies.count == 200)
        for index in 0..<200 { #expect(replies[index] == "a:\(index) b:\(index) on \(Self.ioThreadName)") }
        await front.shutdown()
        await downstreamA.shutdown()
        await downstreamB.shutdown()
    }

    @Test("the watchdog names a handler that blocks the I/O thread, and not one that only awaits as long")
    func watchdogNamesBlockingHandler() async throws {
        let front = RPCServer(configuration: .init(bindEndpoint: "tcp://127.0.0.1:0"), services: [HoldingService()], logger: .init(label: "holding"))
        try front.startInProcess()
        TestResources.track(front)
        let client = RPCClient(inProcess: front, configuration: .forTests)
        defer { client.close() }
        let before = IOThreadWatchdog.reports.count

        _ = try await client.call(HoldingService.awaiting, .init())
        _ = try await client.call(HoldingService.blocking, .init())

        let reports = IOThreadWatchdog.reports.dropFirst(before)
        #if DEBUG
        // Another test's handler may be on the thread too, and be named beside it; the 50 ms blocked are this one's.
        #expect(reports.contains { $0.methods.contains(HoldingService.blocking.path) && $0.blocked >= .milliseconds(40) }, "\(Array(reports))")
        #expect(!reports.contains { $0.methods == [HoldingService.awaiting.path] }, "\(Array(reports))")
        #else
        #expect(reports.isEmpty, "release builds measure nothing")
        #endif
        await front.shutdown()
    }
}

/// Two methods on the I/O thread that take 50 ms each: one blocks the thread (what no handler there may do), one
/// awaits.
private struct HoldingService: RPCService {
    typealias Method = RPCMethod<Plantguide_Health_V1_HealthCheckRequest, Plantguide_Metrics_V1_ScrapeResponse>
    static let blocking = Method(path: "/plantguide.test.v1.Holding/Block", isIdempotent: true)
    static let awaiting = Method(path: "/plantguide.test.v1.Holding/Await", isIdempotent: true)

    var handlerExecution: RPCHandlerExecution? { .ioThread }

    func registerMethods(with router: inout RPCRouter) {
        router.register(Self.blocking) { _, _ in
            usleep(50_000)
            return .init()
        }
        router.register(Self.awaiting) { _, _ in
            try await Task.sleep(for: .milliseconds(50))
            return .init()
        }
    }
}

/// A front that calls two services at once for each request and joins their answers, naming the thread it
/// resumed on.
private struct FanOutService: RPCService {
    static let method = RPCMethod<Plantguide_Health_V1_HealthCheckRequest, Plantguide_Metrics_V1_ScrapeResponse>(
        path: "/plantguide.test.v1.FanOut/Join", isIdempotent: true)

    let first: RPCClient
    let second: RPCClient

    func registerMethods(with router: inout RPCRouter) {
        let first = self.first
        let second = self.second
        router.register(Self.method) { request, _ in
            async let a = first.call(TestMethods.echo, request)
            async let b = second.call(TestMethods.echo, request)
            let joined = try await "\(a.text) \(b.text)"
            return .with { $0.text = "\(joined) on \(currentThreadName())" }
        }
    }
}

