import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("Deadlines and cancellation", .cleansUp)
struct RPCDeadlineTests {
    @Test("a deadline shorter than the handler gives DEADLINE_EXCEEDED, long before the handler would finish",
          arguments: TestTransport.allCases, [RPCServerConfiguration.HandlerExecution.globalPool, .ioThread])
    func deadlineShorterThanHandler(transport: TestTransport, execution: RPCServerConfiguration.HandlerExecution) async throws {
        let (server, client) = try TestServer.connected(transport) { $0.handlerExecution = execution }
        defer { client.close() }
        let clock = ContinuousClock()
        let started = clock.now

        let error = await #expect(throws: RPCError.self) {
            _ = try await client.call(
                TestMethods.sleep, .with { $0.service = "30000" }, options: .init(timeout: .milliseconds(200)))
        }

        #expect(error?.code == .deadlineExceeded)
        #expect(clock.now - started < TestTime.scaled(.seconds(10)), "the call must end at its deadline, not when the handler does")
        // The server is free again: the cancelled handler does not hold its slot.
        let reply = try await client.call(TestMethods.echo, .with { $0.service = "after" })
        #expect(reply.text == "s:after")
        await server.shutdown()
    }

    @Test("the server answers DEADLINE_EXCEEDED itself when its handler overruns the request's deadline")
    func serverSideDeadline() async throws {
        let (server, endpoint) = try TestServer.start()
        let socket = try RawDealer(connectingTo: endpoint)
        var request = Plantguide_Rpc_V1_RpcRequest()
        request.id = 42
        request.method = TestMethods.sleep.path
        request.timeoutMs = 200
        request.payload = try Plantguide_Health_V1_HealthCheckRequest.with { $0.service = "30000" }.serializedBytes()

        try socket.send(request.serializedBytes())
        let reply = try Plantguide_Rpc_V1_RpcResponse(serializedBytes: try #require(await socket.receive(timeoutMs: 10_000)))

        #expect(reply.id == 42)
        #expect(reply.status.code == .deadlineExceeded)
        await server.shutdown()
    }

    @Test("cancelling the calling task ends the call with CANCELLED", arguments: TestTransport.allCases)
    func cancellation(transport: TestTransport) async throws {
        let (server, client) = try TestServer.connected(transport)
        defer { client.close() }

        let task = Task {
            try await client.call(TestMethods.sleep, .with { $0.service = "30000" }, options: .init(timeout: TestTime.scaled(.seconds(60))))
        }
        task.cancel()
        let result = await task.result

        guard case .failure(let error as RPCError) = result else {
            Issue.record("expected an RPCError, got \(result)")
            return
        }
        #expect(error.code == .cancelled)
        await server.shutdown()
    }
}
