import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("RPC round trips, over ZeroMQ and in process", .cleansUp)
struct RPCRoundTripTests {
    @Test("1,000 concurrent calls are all answered, each with its own reply", arguments: TestTransport.allCases, [false, true])
    func thousandConcurrentCalls(transport: TestTransport, onIOThreads: Bool) async throws {
        let (server, client) = try TestServer.connected(transport, name: "a") {
            $0.handlerExecution = onIOThreads ? .ioThread : .globalPool
        }
        defer { client.close() }

        let replies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<1_000 {
                group.addTask(executorPreference: onIOThreads ? client.executor : nil) {
                    let reply = try await client.call(TestMethods.echo, .with { $0.service = "call-\(index)" })
                    return (index, reply.text)
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }

        #expect(replies.count == 1_000)
        for index in 0..<1_000 { #expect(replies[index] == "a:call-\(index)") }
        await server.shutdown()
    }

    @Test("Health/Check and Metrics/Scrape come with every server", arguments: TestTransport.allCases)
    func builtInMethods(transport: TestTransport) async throws {
        let (server, client) = try TestServer.connected(transport)
        defer { client.close() }

        let health = try await client.call(Plantguide_Health_V1_Health.check, .init())
        _ = try await client.call(TestMethods.echo, .with { $0.service = "x" })
        let metrics = try await client.call(Plantguide_Metrics_V1_Metrics.scrape, .init())

        #expect(health.status == .serving)
        #expect(metrics.text.contains(#"plantguide_rpc_server_handled_total{method="/plantguide.test.v1.Test/Echo",code="OK"} 1"#))
        await #expect(throws: RPCError.self) {
            _ = try await client.call(Plantguide_Health_V1_Health.check, .with { $0.service = "no.such.Service" })
        }
        await server.shutdown()
    }

    @Test("an unknown method gets UNIMPLEMENTED", arguments: TestTransport.allCases)
    func unknownMethod(transport: TestTransport) async throws {
        let (server, client) = try TestServer.connected(transport)
        defer { client.close() }

        let error = await #expect(throws: RPCError.self) {
            _ = try await client.call(path: "/plantguide.nope.v1.Nope/Missing", payload: Data(), isIdempotent: true)
        }

        #expect(error?.code == .unimplemented)
        #expect(error?.message == "unknown method '/plantguide.nope.v1.Nope/Missing'")
        await server.shutdown()
    }

    @Test("a status thrown by a handler reaches the caller with its message", arguments: TestTransport.allCases, [
        RPCError.Code.notFound, .invalidArgument, .permissionDenied, .failedPrecondition, .unauthenticated,
    ])
    func handlerStatus(transport: TestTransport, code: RPCError.Code) async throws {
        let (server, client) = try TestServer.connected(transport)
        defer { client.close() }

        let error = await #expect(throws: RPCError.self) {
            _ = try await client.call(TestMethods.fail, .with { $0.service = "\(code.rawValue)" })
        }

        #expect(error?.code == code)
        #expect(error?.message == "asked for it")
        await server.shutdown()
    }

    @Test("a payload that is not the method's request message gets INVALID_ARGUMENT", arguments: TestTransport.allCases)
    func malformedPayload(transport: TestTransport) async throws {
        let (server, client) = try TestServer.connected(transport)
        defer { client.close() }

        let error = await #expect(throws: RPCError.self) {
            _ = try await client.call(path: TestMethods.echo.path, payload: Data([0x0A, 0xFF, 0x01]), isIdempotent: false)
        }

        #expect(error?.code == .invalidArgument)
        #expect(error?.details.fieldViolations == [.init(field: "payload", reason: .invalidFormat, description: error?.message ?? "")])
        #expect(error?.message.contains("plantguide.health.v1.HealthCheckRequest") == true)
        await server.shutdown()
    }
}
