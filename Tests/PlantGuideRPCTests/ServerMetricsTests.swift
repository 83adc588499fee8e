import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("A server's metrics", .cleansUp)
struct ServerMetricsTests {
    @Test("the running and queued gauges show what admission control holds: one running and two waiting, then none",
          arguments: TestTransport.allCases)
    func admissionGauges(transport: TestTransport) async throws {
        let (server, client) = try TestServer.connected(transport) { $0.maxConcurrentCalls = 1 }
        defer { client.close() }
        let gate = "gauges-\(UUID().uuidString)"

        // The first call holds the only slot until the gate opens, so the other two wait in the queue meanwhile.
        let calls = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 { group.addTask { _ = try await client.call(TestMethods.gate, .with { $0.service = gate }) } }
                try await group.waitForAll()
            }
        }
        let busy = try await gauges(of: client) { $0 == (running: 1, queued: 2) }
        TestGate.open(gate)
        try await calls.value
        let idle = try await gauges(of: client) { $0 == (running: 0, queued: 0) }

        #expect(busy == (running: 1, queued: 2) && idle == (running: 0, queued: 0))
        await server.shutdown()
    }

    /// The gauges as Metrics/Scrape reports them, scraped until `wanted` holds or 20 s have passed.
    private func gauges(of client: RPCClient, until wanted: ((running: Int, queued: Int)) -> Bool) async throws -> (running: Int, queued: Int) {
        var last = (running: -1, queued: -1)
        for _ in 0..<2_000 {
            let text = try await client.call(Plantguide_Metrics_V1_Metrics.scrape, .init()).text
            func value(_ name: String) -> Int {
                let line = text.split(separator: "\n").first { $0.hasPrefix("\(name) ") }
                return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? -1
            }
            last = (value("plantguide_rpc_server_running_calls"), value("plantguide_rpc_server_queued_calls"))
            if wanted(last) { return last }
            try await Task.sleep(for: .milliseconds(10))
        }
        return last
    }
}
