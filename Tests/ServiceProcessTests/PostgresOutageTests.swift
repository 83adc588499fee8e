import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("Services on PostgreSQL: an outage of the database")
struct PostgresOutageTests {
    /// A stateful service and a call of it that reads its database.
    struct Subject: Sendable, CustomTestStringConvertible {
        var service: String
        var call: @Sendable (RPCClient, Duration) async throws -> Void

        var testDescription: String { service }

        static let all = [
            Subject(service: "caredata") { client, timeout in  // reads the cache, then the catalog
                let care = try await client.call(Plantguide_Caredata_V1_CareDataService.getCareInfo, .with { $0.scientificName = "Ficus lyrata" },
                                                 options: .init(timeout: timeout))
                #expect(care.careInfo.family == "Moraceae")
            },
            Subject(service: "collection") { client, timeout in
                _ = try await client.call(Plantguide_Collection_V1_CollectionService.listPlants, .init(),
                                          options: .init(timeout: timeout, metadata: ["plantguide-user-id": "u1"]))
            },
            Subject(service: "scheduling") { client, timeout in
                _ = try await client.call(Plantguide_Scheduling_V1_SchedulingService.listTasks, .init(),
                                          options: .init(timeout: timeout, metadata: ["plantguide-user-id": "u1"]))
            },
        ]
    }

    @Test("PostgreSQL stopped under calls is UNAVAILABLE within the deadline and NOT_SERVING; back, the service recovers alone",
          arguments: Subject.all)
    func outage(subject: Subject) async throws {
        let database = try await TestPostgres.dedicated()
        let endpoint = "tcp://127.0.0.1:\(try FreePort.next())"
        let service = try await ServiceProcess(
            "plantguide-\(subject.service)", endpoint: endpoint,
            environment: database.environment(schema: subject.service).merging(["PLANTGUIDE_REMINDERS_BIND": "tcp://127.0.0.1:\(try FreePort.next())"]) { $1 })
        var configuration = RPCClientConfiguration()
        configuration.maxAttempts = 1
        let client = try RPCClient(target: endpoint, configuration: configuration)
        defer { client.close() }
        func health() async throws -> Plantguide_Health_V1_HealthCheckResponse.ServingStatus {
            try await client.call(Plantguide_Health_V1_Health.check, .init()).status
        }
        try await subject.call(client, .seconds(5))
        #expect(try await health() == .serving)

        try await database.pause()
        let clock = ContinuousClock()
        let stopped = clock.now
        var codes: [RPCError.Code] = []
        var slowest = Duration.zero
        var notServingAfter: Duration?
        while clock.now - stopped < .seconds(4) {
            let start = clock.now
            do {
                try await subject.call(client, .seconds(3))
                codes.append(RPCError.Code.ok)
            } catch let error as RPCError {
                codes.append(error.code)
            }
            slowest = max(slowest, clock.now - start)
            if notServingAfter == nil, try await health() == .notServing { notServingAfter = clock.now - stopped }
            try await Task.sleep(for: .milliseconds(50))
        }
        let unavailable = codes.filter { $0 == .unavailable }.count
        let answered = codes.filter { $0 == .ok }.count
        #expect(unavailable > 0 && unavailable + answered == codes.count, "\(codes)")
        #expect(slowest < .seconds(3), "every call ended within its 3 s deadline; the slowest took \(slowest)")
        let noticed = notServingAfter.map { $0 < Duration.seconds(3) } ?? false
        #expect(noticed, "health said NOT_SERVING after \(String(describing: notServingAfter))")

        try await database.resume()
        let resumed = clock.now
        var recovered = false
        while !recovered, clock.now - resumed < .seconds(10) {
            recovered = (try? await subject.call(client, .seconds(2))) != nil
            if !recovered { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(recovered, "calls succeed again within 10 s of PostgreSQL's return")
        var serving = false
        while !serving, clock.now - resumed < .seconds(10) {
            serving = try await health() == .serving
            if !serving { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(serving && service.ending == "running")
        #expect(await service.terminate() == 0)
    }
}
