import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

/// Health checks stay prompt while a service's handlers are saturated: an orchestrator kills a pod whose probe
/// times out, so this is correctness, not speed. Each service runs as a real process; the probes come from a
/// thread of their own (``HealthProber``), so they measure the service and not this test process.
@Suite("Health under saturation", .serialized, .cleansUp, .noStackBeside)
struct LivenessTests {
    /// The most a probe may take at the 99th percentile while the service is saturated.
    static let p99Limit = 100.0
    static let loadDuration = Duration.seconds(4)

    /// Runs `load` with `inFlight` concurrent callers for ``loadDuration`` while probing health.
    private func probe(
        _ service: ServiceProcess, inFlight: Int, load: @escaping @Sendable (RPCClient, Int) async throws -> Void
    ) async throws -> (HealthProber.Report, calls: Int) {
        let client = try RPCClient(target: service.endpoint, configuration: .forTests)
        defer { client.close() }
        let prober = HealthProber(endpoint: service.endpoint)
        async let report = prober.run()
        let end = ContinuousClock.now + Self.loadDuration
        let calls = try await withThrowingTaskGroup(of: Int.self) { group in
            for caller in 0..<inFlight {
                group.addTask {
                    var count = 0
                    while ContinuousClock.now < end {
                        try await load(client, caller * 1_000_000 + count)
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        prober.stop()
        return (await report, calls)
    }

    private func expectLive(_ report: HealthProber.Report, calls: Int, _ service: String) {
        let p99 = report.latency(atPercentile: 99)
        #expect(calls > 0, "no call got through to \(service)")
        #expect(report.latencies.count >= 20, "\(service): only \(report.latencies.count) probes answered")
        #expect(report.unanswered == 0 && report.notServing == 0, "\(service): \(report.unanswered) unanswered, \(report.notServing) not serving")
        #expect(p99 < Self.p99Limit, "\(service): health p99 \(p99) ms under load (\(calls) calls)")
    }

    @Test("identification answers health within 100 ms at p99 while 64 on-device identifications saturate it")
    func identification() async throws {
        let service = try await ServiceProcess(
            "plantguide-identification", endpoint: "tcp://127.0.0.1:\(try FreePort.next())",
            environment: ["PLANTGUIDE_MODELS": ModelFixtures.modelRepository.path],
            arguments: ["--cache-size", "0"])  // every call decodes its photo and runs the model
        let photo = try await BlockingWork.run { try TestImages.jpeg(TestImages.gradient(width: 1_600, height: 1_200)) }
        let (report, calls) = try await probe(service, inFlight: 64) { client, _ in
            do {
                _ = try await client.call(Plantguide_Identification_V1_IdentificationService.identify, .with {
                    $0.method = .onDevice
                    $0.images = [.with { $0.data = photo }]
                }, options: .init(timeout: TestTime.scaled(.seconds(30))))
            } catch let error as RPCError where error.code == .resourceExhausted {
                try await Task.sleep(for: .milliseconds(10))  // saturated, as intended
            }
        }
        expectLive(report, calls: calls, "identification")
        #expect(await service.terminate() == 0)
    }

    @Test("collection answers health within 100 ms at p99 under 64 concurrent writers")
    func collection() async throws {
        let service = try await ServiceProcess("plantguide-collection", endpoint: "tcp://127.0.0.1:\(try FreePort.next())")
        let (report, calls) = try await probe(service, inFlight: 64) { client, index in
            _ = try await client.call(Plantguide_Collection_V1_CollectionService.addPlant, .with {
                $0.plant.id = "p\(index)"
                $0.plant.scientificName = "Monstera deliciosa"
                $0.plant.notes = "plant number \(index)"
            }, options: .init(timeout: TestTime.scaled(.seconds(30)), metadata: ["plantguide-user-id": "u\(index % 8)"]))
        }
        expectLive(report, calls: calls, "collection")
        #expect(await service.terminate() == 0)
    }
}
