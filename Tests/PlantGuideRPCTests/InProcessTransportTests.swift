import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

/// What only the in-process transport has to show; the conformance tests (round trips, deadlines, cancellation,
/// limits, admission) run over it and over ZeroMQ alike.
@Suite("The in-process transport", .cleansUp)
struct InProcessTransportTests {
    @Test("a server started in process has no socket, and its callers get the same answers")
    func noSocket() async throws {
        let (server, client) = try TestServer.connected(.inProcess)
        defer { client.close() }

        #expect(server.endpoint == RPCServer.inProcessEndpoint)
        #expect(try await client.call(TestMethods.echo, .with { $0.service = "hi" }).text == "s:hi")
        await server.shutdown()
    }

    @Test("health is answered ahead of admission while every slot and the queue are taken")
    func healthAheadOfAdmission() async throws {
        let (server, client) = try TestServer.connected(.inProcess) {
            $0.maxConcurrentCalls = 1
            $0.maxQueuedCalls = 0
        }
        defer { client.close() }
        let busy = Task { try await client.call(TestMethods.sleep, .with { $0.service = "2000" }) }
        try await Task.sleep(for: .milliseconds(100))

        let refused = await #expect(throws: RPCError.self) {
            _ = try await client.call(TestMethods.sleep, .with { $0.service = "0" })
        }
        let health = try await client.call(Plantguide_Health_V1_Health.check, .init())

        #expect(refused?.code == .resourceExhausted)
        #expect(health.status == .serving)
        busy.cancel()
        await server.shutdown(grace: .milliseconds(100))
    }

    @Test("a call in flight at shutdown finishes within the grace; later calls are UNAVAILABLE")
    func shutdown() async throws {
        let (server, client) = try TestServer.connected(.inProcess)
        defer { client.close() }
        let gate = "shutdown-\(UUID().uuidString)"
        let inFlight = Task { try await client.call(TestMethods.gate, .with { $0.service = gate }) }
        try await TestGate.waitUntilEntered(gate)

        let shutdown = Task { await server.shutdown(grace: .seconds(30)) }
        // New calls are refused once the shutdown has begun; the gated call is still in flight then.
        var refusal: RPCError?
        while refusal == nil {
            do {
                _ = try await client.call(path: TestMethods.echo.path, payload: Data(), isIdempotent: false)
                try await Task.sleep(for: .milliseconds(5))
            } catch let error as RPCError {
                refusal = error
            }
        }
        TestGate.open(gate)
        await shutdown.value
        let reply = try await inFlight.value

        #expect(reply.text == "s:passed")
        #expect(refusal?.code == .unavailable)
    }
}
