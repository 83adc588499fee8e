import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("Several endpoints: balancing, failover, DNS", .cleansUp)
struct RPCLoadBalancingTests {
    private func echoCounts(_ client: RPCClient, calls: Int) async throws -> [String: Int] {
        try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<calls {
                group.addTask {
                    let reply = try await client.call(TestMethods.echo, .with { $0.service = "\(index)" })
                    return String(reply.text.prefix { $0 != ":" })
                }
            }
            return try await group.reduce(into: [:]) { $0[$1, default: 0] += 1 }
        }
    }

    @Test("calls are spread over all three endpoints, and a stopped endpoint is avoided")
    func spreadAndFailover() async throws {
        let servers = try ["a", "b", "c"].map { try TestServer.start(name: $0) }
        let client = try RPCClient(target: servers.map(\.endpoint).joined(separator: ","), configuration: .forTests)
        defer { client.close() }
        #expect(await client.waitUntilAllEndpointsReady(timeout: TestTime.scaled(.seconds(20))))

        let before = try await echoCounts(client, calls: 300)
        #expect(before.values.reduce(0, +) == 300)
        for name in ["a", "b", "c"] { #expect(before[name, default: 0] >= 50, "\(name) got \(before[name, default: 0]) of 300") }

        await servers[1].server.shutdown(grace: .zero)
        let after = try await echoCounts(client, calls: 300)

        #expect(after.values.reduce(0, +) == 300)
        #expect(after["b"] == nil)
        #expect(after["a", default: 0] > 0 && after["c", default: 0] > 0)
        for (server, _) in servers { await server.shutdown() }
    }

    @Test("sequential calls rotate over idle endpoints")
    func sequentialRotation() async throws {
        let servers = try ["a", "b", "c"].map { try TestServer.start(name: $0) }
        let client = try RPCClient(target: servers.map(\.endpoint).joined(separator: ","), configuration: .forTests)
        defer { client.close() }
        #expect(await client.waitUntilAllEndpointsReady(timeout: TestTime.scaled(.seconds(20))))

        var seen: Set<String> = []
        for index in 0..<30 {
            let reply = try await client.call(TestMethods.echo, .with { $0.service = "\(index)" })
            seen.insert(String(reply.text.prefix { $0 != ":" }))
        }

        #expect(seen.count == 3)
        for (server, _) in servers { await server.shutdown() }
    }

    @Test("a DNS name is resolved and its address used")
    func dnsTarget() async throws {
        let (server, endpoint) = try TestServer.start()
        let port = try #require(endpoint.split(separator: ":").last)
        let client = try RPCClient(target: "dns:///localhost:\(port)", configuration: .forTests)
        defer { client.close() }

        let reply = try await client.call(TestMethods.echo, .with { $0.service = "via-dns" }, options: .init(waitForReady: true))

        #expect(reply.text == "s:via-dns")
        await server.shutdown()
    }

    @Test("an unresolvable name fails with UNAVAILABLE saying so")
    func unresolvable() async throws {
        let client = try RPCClient(target: "dns:///no-such-host.invalid:7001", configuration: .forTests)
        defer { client.close() }

        // The deadline outlasts the system resolver's own retries (glibc: 5 s a try, two tries, A and AAAA), which an
        // upstream DNS server that drops a reply uses up: the answer asserted is the error, not how fast it comes.
        let error = await #expect(throws: RPCError.self) {
            _ = try await client.call(TestMethods.echo, .init(), options: .init(timeout: TestTime.scaled(.seconds(30))))
        }

        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("no-such-host.invalid") == true)
    }

    @Test("with nothing listening, a call fails with UNAVAILABLE well within its deadline")
    func nothingListening() async throws {
        let port = try FreePort.next()
        let client = try RPCClient(target: "tcp://127.0.0.1:\(port)", configuration: .forTests)
        defer { client.close() }
        let clock = ContinuousClock()
        let started = clock.now

        let error = await #expect(throws: RPCError.self) {
            _ = try await client.call(TestMethods.echo, .init(), options: .init(timeout: TestTime.scaled(.seconds(30))))
        }

        #expect(error?.code == .unavailable)
        #expect(clock.now - started < TestTime.scaled(.seconds(15)))
    }

    @Test("a server answering UNAVAILABLE is retried for idempotent methods only")
    func retriesOnlyIdempotent() async throws {
        let (server, endpoint) = try TestServer.start()
        let client = try RPCClient(target: endpoint, configuration: .forTests)
        defer { client.close() }
        let unavailable = Plantguide_Health_V1_HealthCheckRequest.with { $0.service = "14" }
        let idempotentFail = RPCMethod<Plantguide_Health_V1_HealthCheckRequest, Plantguide_Metrics_V1_ScrapeResponse>(
            path: TestMethods.fail.path, isIdempotent: true)

        await #expect(throws: RPCError.self) { _ = try await client.call(TestMethods.fail, unavailable) }
        await #expect(throws: RPCError.self) { _ = try await client.call(idempotentFail, unavailable) }
        await #expect(throws: RPCError.self) {
            _ = try await client.call(TestMethods.fail, unavailable, options: .init(metadata: ["idempotency-key": "k1"]))
        }

        let metrics = try await client.call(Plantguide_Metrics_V1_Metrics.scrape, .init()).text
        // 1 attempt for the plain call, 4 (the default maximum) for each retryable one.
        #expect(metrics.contains(#"method="/plantguide.test.v1.Test/Fail",code="UNAVAILABLE"} 9"#))
        await server.shutdown()
    }
}
