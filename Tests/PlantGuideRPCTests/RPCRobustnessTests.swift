import CZeroMQ
import Foundation
import PlantGuideProtos
import PlantGuideRPC
import SwiftProtobuf
import PlantGuideTestSupport
import Testing

@Suite("Bad input on the wire", .cleansUp)
struct RPCRobustnessTests {
    @Test("random bytes and truncated envelopes leave the server serving the next good call")
    func junkFrames() async throws {
        let (server, endpoint) = try TestServer.start()
        let junk = try RawDealer(connectingTo: endpoint)
        var generator = SystemRandomNumberGenerator()
        var good = Plantguide_Rpc_V1_RpcRequest()
        good.id = 7
        good.method = TestMethods.echo.path
        good.payload = try Plantguide_Health_V1_HealthCheckRequest.with { $0.service = "survived" }.serializedBytes()
        let goodBytes: [UInt8] = try good.serializedBytes()

        for length in [0, 1, 2, 3, 17, 100, 4_096] {
            try junk.send((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        for cut in stride(from: 1, to: goodBytes.count, by: 3) {
            try junk.send(Array(goodBytes.prefix(cut)))
        }
        try junk.send(goodBytes)

        // Truncated envelopes that still parse are answered (with their id); the good call must be among them.
        var answered: Plantguide_Rpc_V1_RpcResponse?
        while let bytes = await junk.receive(timeoutMs: 10_000) {
            let reply = try Plantguide_Rpc_V1_RpcResponse(serializedBytes: bytes)
            if reply.id == 7 && reply.status.code == .ok {
                answered = reply
                break
            }
        }
        let reply = try #require(answered)
        #expect(try Plantguide_Metrics_V1_ScrapeResponse(serializedBytes: reply.payload).text == "s:survived")
        let client = try RPCClient(target: endpoint, configuration: .forTests)
        defer { client.close() }
        #expect(try await client.call(Plantguide_Health_V1_Health.check, .init()).status == .serving)
        await server.shutdown()
    }

    @Test("huge metadata, too many entries or a huge method name are refused by their id, before parsing")
    func envelopeLimits() async throws {
        let (server, endpoint) = try TestServer.start()
        let dealer = try RawDealer(connectingTo: endpoint)
        func refusal(_ configure: (inout Plantguide_Rpc_V1_RpcRequest) -> Void) async throws -> Plantguide_Rpc_V1_RpcResponse {
            var request = Plantguide_Rpc_V1_RpcRequest()
            request.method = TestMethods.echo.path
            configure(&request)
            try dealer.send(request.serializedBytes())
            return try Plantguide_Rpc_V1_RpcResponse(serializedBytes: try #require(await dealer.receive(timeoutMs: 10_000)))
        }
        let hugeValue = try await refusal { $0.id = 1; $0.metadata = ["x-junk": String(repeating: "a", count: 15 << 20)] }
        #expect(hugeValue.id == 1 && hugeValue.status.code == .resourceExhausted && hugeValue.status.message.contains("metadata"))
        let manyEntries = try await refusal { request in
            request.id = 2
            for index in 0..<65 { request.metadata["k\(index)"] = "v" }
        }
        #expect(manyEntries.id == 2 && manyEntries.status.code == .resourceExhausted)
        let hugeMethod = try await refusal { $0.id = 3; $0.method = "/" + String(repeating: "m", count: 15 << 20) }
        #expect(hugeMethod.id == 3 && hugeMethod.status.code == .invalidArgument && hugeMethod.status.message.contains("method"))
        let violation = try Plantguide_Rpc_V1_BadRequest(unpackingAny: try #require(hugeMethod.status.details.first)).fieldViolations
        #expect(violation.map(\.field) == ["method"] && violation.map(\.reason) == ["TOO_LONG"])
        let withinLimits = try await refusal { request in
            request.id = 4
            for index in 0..<64 { request.metadata["k\(index)"] = String(repeating: "v", count: 100) }
            request.payload = try! Plantguide_Health_V1_HealthCheckRequest.with { $0.service = "ok" }.serializedData()
        }
        #expect(withinLimits.id == 4 && withinLimits.status.code == .ok)
        await server.shutdown()
    }

    @Test("a REQ socket (with its empty delimiter frame) is answered like a DEALER")
    func reqSocket() async throws {
        let (server, endpoint) = try TestServer.start()
        let req = try RawDealer(connectingTo: endpoint, type: ZMQ_REQ)
        var request = Plantguide_Rpc_V1_RpcRequest()
        request.id = 9
        request.method = Plantguide_Health_V1_Health.check.path

        try req.send(request.serializedBytes())
        let reply = try Plantguide_Rpc_V1_RpcResponse(serializedBytes: try #require(await req.receive(timeoutMs: 10_000)))

        #expect(reply.id == 9)
        #expect(try Plantguide_Health_V1_HealthCheckResponse(serializedBytes: reply.payload).status == .serving)
        await server.shutdown()
    }

    @Test("a request over the server's size limit gets RESOURCE_EXHAUSTED, and the server goes on", arguments: TestTransport.allCases)
    func oversizedRequest(transport: TestTransport) async throws {
        let (server, client) = try TestServer.connected(transport) { $0.maxMessageSize = 64 << 10 }
        defer { client.close() }
        let big = String(repeating: "x", count: 100 << 10)

        let error = await #expect(throws: RPCError.self) {
            _ = try await client.call(TestMethods.echo, .with { $0.service = big })
        }

        #expect(error?.code == .resourceExhausted)
        #expect(error?.message.contains("exceeds the server's limit") == true)
        #expect(error?.reasonCode == RPCErrorReason.requestTooLarge && error?.details.retryDelay == nil)
        #expect(try await client.call(TestMethods.echo, .with { $0.service = "small" }).text == "s:small")
        await server.shutdown()
    }

    @Test("a request over the client's own limit fails before it is sent")
    func oversizedForClient() async throws {
        var configuration = RPCClientConfiguration.forTests
        configuration.maxMessageSize = 1_024
        let client = try RPCClient(target: "tcp://127.0.0.1:9", configuration: configuration)
        defer { client.close() }

        let error = await #expect(throws: RPCError.self) {
            _ = try await client.call(TestMethods.echo, .with { $0.service = String(repeating: "y", count: 2_000) })
        }

        #expect(error?.code == .resourceExhausted)
    }

    @Test("calls beyond the concurrency limit and the queue get RESOURCE_EXHAUSTED", arguments: TestTransport.allCases)
    func overload(transport: TestTransport) async throws {
        let (server, client) = try TestServer.connected(transport) {
            $0.maxConcurrentCalls = 2
            $0.maxQueuedCalls = 2
        }
        defer { client.close() }

        let errors = await Self.concurrentSleepErrors(8, service: "1000", on: client)

        #expect(errors.filter { $0 == nil }.count == 4)
        let refusals = errors.compactMap { $0 }.filter { $0.code == .resourceExhausted }
        #expect(refusals.count == 4)
        // A program tells a full queue from a quota or a size limit, and knows when to come back.
        #expect(refusals.allSatisfy { $0.reasonCode == RPCErrorReason.serverQueueFull && $0.details.retryDelay == .milliseconds(100) })
        await server.shutdown()
    }

    @Test("queued request bytes are bounded: beyond the byte budget calls are RESOURCE_EXHAUSTED, whatever the count",
          arguments: TestTransport.allCases)
    func queuedBytes(transport: TestTransport) async throws {
        let (server, client) = try TestServer.connected(transport) {
            $0.maxConcurrentCalls = 1
            $0.maxQueuedBytes = 1_000
        }
        defer { client.close() }
        // Four 1.5 s sleeps of 600 bytes each ("000…1500"): one runs, one waits (600 of 1,000 bytes), two are refused.
        let sleep = String(repeating: "0", count: 596) + "1500"
        let codes = await Self.concurrentSleeps(4, service: sleep, on: client)
        #expect(codes.filter { $0 == .ok }.count == 2)
        #expect(codes.filter { $0 == .resourceExhausted }.count == 2)
        await server.shutdown()
    }

    /// The statuses of `count` Sleep calls made at once (`service` holds the milliseconds, zero-padded or not).
    private static func concurrentSleeps(_ count: Int, service: String, on client: RPCClient) async -> [RPCError.Code] {
        await concurrentSleepErrors(count, service: service, on: client).map { $0?.code ?? .ok }
    }

    /// The errors of `count` Sleep calls made at once; nil for each that succeeded.
    private static func concurrentSleepErrors(_ count: Int, service: String, on client: RPCClient) async -> [RPCError?] {
        await withTaskGroup(of: RPCError?.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        _ = try await client.call(TestMethods.sleep, .with { $0.service = service })
                        return nil
                    } catch let error as RPCError {
                        return error
                    } catch {
                        return RPCError(.unknown, "\(error)")
                    }
                }
            }
            return await group.reduce(into: [RPCError?]()) { $0.append($1) }
        }
    }
}
