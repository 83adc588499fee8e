import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Synchronization
import Testing

/// A service whose process is starved of CPU, with PostgreSQL up the whole time, answers slowly and never
/// UNAVAILABLE: its own lateness is not the database's silence. (A frozen or stopped database is still UNAVAILABLE
/// quickly: `PostgresOutageTests`.)
@Suite("Services on PostgreSQL: a starved process is no database outage")
struct StarvedServiceTests {
    /// A collection service on the shared test server, its log in a file, and a client that waits long.
    struct Subject {
        let service: ServiceProcess
        let client: RPCClient
        let log: URL

        init() async throws {
            log = FileManager.default.temporaryDirectory.appendingPathComponent("starved-\(UUID().uuidString).log")
            TestResources.track(folder: log)
            let endpoint = "tcp://127.0.0.1:\(try FreePort.next())"
            service = try await ServiceProcess("plantguide-collection", endpoint: endpoint,
                                               environment: try await TestPostgres.environment(), logLevel: "notice", log: log)
            var configuration = RPCClientConfiguration.forTests
            configuration.maxAttempts = 1
            client = try RPCClient(target: endpoint, configuration: configuration)
        }

        /// A call that reads the database, with a deadline far beyond any starvation here.
        func call() async -> RPCError.Code {
            do {
                _ = try await client.call(Plantguide_Collection_V1_CollectionService.listPlants, .init(),
                                          options: .init(timeout: TestTime.scaled(.seconds(60)), metadata: ["plantguide-user-id": "u1"]))
                return .ok
            } catch let error as RPCError {
                return error.code
            } catch {
                return .unknown
            }
        }

        /// Calls from `callers` at once, each in a loop until `stop` says so; the codes they got.
        func load(callers: Int, until stop: @escaping @Sendable () -> Bool) async -> [RPCError.Code] {
            await withTaskGroup(of: [RPCError.Code].self) { group in
                for _ in 0..<callers {
                    group.addTask {
                        var codes: [RPCError.Code] = []
                        repeat { codes.append(await call()) } while !stop()
                        return codes
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
        }

        /// What the service logged about the database being away.
        func outageLines() throws -> [String] {
            try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
                .filter { $0.contains("PostgreSQL is unreachable") }
        }
    }

    @Test("stopped (SIGSTOP) for twice its outage time with calls in flight, then resumed: every call answered, no outage")
    func stoppedProcess() async throws {
        let subject = try await Subject()
        defer { subject.client.close() }
        #expect(await subject.call() == .ok)

        let stopped = Atomic<Bool>(false)
        let calls = Task { await subject.load(callers: 4, until: { stopped.load(ordering: .relaxed) }) }
        try await Task.sleep(for: .milliseconds(300))
        kill(subject.service.processIdentifier, SIGSTOP)
        try await Task.sleep(for: .seconds(4))
        kill(subject.service.processIdentifier, SIGCONT)
        try await Task.sleep(for: .seconds(1))
        stopped.store(true, ordering: .relaxed)
        let codes = await calls.value

        #expect(!codes.isEmpty && codes.allSatisfy { $0 == .ok }, "\(codes.filter { $0 != .ok })")
        let outages = try subject.outageLines()
        #expect(outages.isEmpty, "\(outages)")
        #expect(await subject.service.terminate() == 0)
    }

    @Test("pinned to one core beside two CPU hogs at a lower priority, under calls: answered slowly, never UNAVAILABLE")
    func starvedBesideHogs() async throws {
        let subject = try await Subject()
        defer { subject.client.close() }
        #expect(await subject.call() == .ok)
        let pid = subject.service.processIdentifier
        // Every thread of the service on core 0 at the lowest priority, and two busy loops on that core beside it.
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        #expect(try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/taskset"), ["-a", "-p", "-c", "0", "\(pid)"]).status == 0)
        #expect(try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/renice"), ["-n", "19", "-p"] + threads).status == 0)
        let hogs = try (0..<2).map { _ in try CPUHog(core: 0) }

        let end = ContinuousClock.now + .seconds(6)
        let codes = await subject.load(callers: 8, until: { ContinuousClock.now >= end })
        let health = try await subject.client.call(Plantguide_Health_V1_Health.check, .init(), options: .init(timeout: TestTime.scaled(.seconds(60))))
        for hog in hogs { hog.stop() }

        #expect(!codes.isEmpty && codes.allSatisfy { $0 == .ok }, "\(codes.filter { $0 != .ok })")
        #expect(health.status == .serving)
        let outages = try subject.outageLines()
        #expect(outages.isEmpty, "\(outages)")
        #expect(await subject.service.terminate() == 0)
    }
}

/// A busy loop in a process of its own, pinned to `core`; stopped by ``stop()`` or when released.
final class CPUHog: Sendable {
    private let process: SpawnedProcess

    init(core: Int) throws {
        process = try SpawnedProcess("/usr/bin/taskset", ["-c", "\(core)", "/bin/sh", "-c", "while :; do :; done"])
    }

    func stop() {
        process.send(SIGKILL)
    }
}
