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
            // Counts the cache's entries: a query each time. (A catalog species with no provider configured needs no
            // database, and is answered through an outage.)
            Subject(service: "caredata") { client, timeout in
                _ = try await client.call(Plantguide_Caredata_V1_CareDataService.getCacheStats, .init(), options: .init(timeout: timeout))
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

    /// How the database goes away, and the times the service is allowed for it.
    enum Fault: String, Sendable, CaseIterable, CustomTestStringConvertible {
        /// Stopped at once (nothing listens): refused, so noticed at once.
        case stopped
        /// Frozen (SIGSTOP): connections stay open and nothing answers, so noticed after the 2 s of silence.
        case frozen

        var testDescription: String { rawValue }

        /// The deadline of each call made meanwhile: a call waiting on a frozen server fails once the silence is an
        /// outage, before its deadline.
        var callDeadline: Duration { self == .stopped ? .seconds(3) : .seconds(5) }
        /// How soon health must say NOT_SERVING: at once for a refusal, the documented 2 s of silence (and a probe's
        /// quarter second) for a frozen server, with a second to spare; times ``TestTime/slowness``. The 2 s are
        /// the service's awake time: a service kept from the CPU (pinned to the test's one core, a slower machine)
        /// takes that time for its own lateness, not the database's silence, and says so later by the wall clock.
        var noticedWithin: Duration { TestTime.scaled(self == .stopped ? .seconds(3) : .seconds(3.5)) }

        func start(_ database: TestPostgres.DedicatedServer) async throws {
            switch self {
            case .stopped: try await database.pause()
            case .frozen: try await database.freeze()
            }
        }

        func end(_ database: TestPostgres.DedicatedServer) async throws {
            switch self {
            case .stopped: try await database.resume()
            case .frozen: try await database.thaw()
            }
        }
    }

    @Test("PostgreSQL stopped or frozen under calls is UNAVAILABLE within the deadline and NOT_SERVING; back, the service recovers alone",
          arguments: Subject.all, Fault.allCases)
    func outage(subject: Subject, fault: Fault) async throws {
        let database = try await TestPostgres.dedicated()
        let endpoint = "tcp://127.0.0.1:\(try FreePort.next())"
        let service = try await ServiceProcess(
            "plantguide-\(subject.service)", endpoint: endpoint,
            environment: database.environment(schema: subject.service).merging(["PLANTGUIDE_REMINDERS_BIND": "tcp://127.0.0.1:\(try FreePort.next())"]) { $1 })
        var configuration = RPCClientConfiguration.forTests
        configuration.maxAttempts = 1
        let client = try RPCClient(target: endpoint, configuration: configuration)
        defer { client.close() }
        func health() async throws -> Plantguide_Health_V1_HealthCheckResponse.ServingStatus {
            try await client.call(Plantguide_Health_V1_Health.check, .init()).status
        }
        try await subject.call(client, .seconds(5))
        #expect(try await health() == .serving)

        try await fault.start(database)
        let clock = ContinuousClock()
        let stopped = clock.now
        let watching = fault.noticedWithin + .seconds(1)
        // Health is asked beside the calls, not after each: a call waiting on the database would otherwise delay
        // the question by up to its deadline, and what is measured would be the call's length.
        async let notServingAfter: Duration? = {
            while clock.now - stopped < watching {
                if try await health() == .notServing { return clock.now - stopped }
                try await Task.sleep(for: .milliseconds(50))
            }
            return nil
        }()
        var codes: [RPCError.Code] = []
        var slowest = Duration.zero
        while clock.now - stopped < watching {
            let start = clock.now
            do {
                try await subject.call(client, fault.callDeadline)
                codes.append(RPCError.Code.ok)
            } catch let error as RPCError {
                codes.append(error.code)
            }
            slowest = max(slowest, clock.now - start)
            try await Task.sleep(for: .milliseconds(50))
        }
        let unavailable = codes.filter { $0 == .unavailable }.count
        let answered = codes.filter { $0 == .ok }.count
        #expect(unavailable > 0 && unavailable + answered == codes.count, "\(codes)")
        #expect(slowest < fault.callDeadline, "every call ended within its \(fault.callDeadline) deadline; the slowest took \(slowest)")
        let noticedAfter = try await notServingAfter
        let noticed = noticedAfter.map { $0 < fault.noticedWithin } ?? false
        #expect(noticed, "health said NOT_SERVING after \(String(describing: noticedAfter))")

        try await fault.end(database)
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
