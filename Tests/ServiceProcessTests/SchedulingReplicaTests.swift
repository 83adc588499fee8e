import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Synchronization
import Testing

/// Replicas of the scheduling service, as real processes on one PostgreSQL, each running its reminder dispatcher:
/// each due reminder reaches a webhook once, and one a killed replica claimed goes out from another.
@Suite("Scheduling replicas on one PostgreSQL", .wholeStack)
struct SchedulingReplicaTests {
    typealias Methods = Plantguide_Scheduling_V1_SchedulingService

    private static func replica(_ database: [String: String]) async throws -> ServiceProcess {
        try await ServiceProcess("plantguide-scheduling", endpoint: "tcp://127.0.0.1:\(try FreePort.next())", environment: database.merging([
            "PLANTGUIDE_REMINDERS_BIND": "tcp://127.0.0.1:\(try FreePort.next())", "PLANTGUIDE_REMINDER_INTERVAL_MS": "200",
            "PLANTGUIDE_ALLOW_LOOPBACK_RECEIVERS": "1",
        ]) { $1 })
    }

    /// `users` users whose weekly watering is due today with its reminder a minute ago (UTC), each with a webhook.
    private static func remindSoon(users: Range<Int>, through client: RPCClient, hook: FakeHTTPServer) async throws {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        // A minute ago must still be today: just after midnight, wait for two minutes past.
        while utc.component(.hour, from: Date()) == 0 && utc.component(.minute, from: Date()) < 2 { try await Task.sleep(for: .seconds(5)) }
        let minuteAgo = utc.dateComponents([.hour, .minute], from: Date().addingTimeInterval(-60))
        for user in users {
            let options = RPCCallOptions(metadata: ["plantguide-user-id": "u\(user)"])
            _ = try await client.call(Methods.registerWebhook, .with {
                $0.id = "h1"
                $0.url = hook.baseURL.appendingPathComponent("hook").absoluteString
                $0.secret = "0123456789abcdef-secret"
            }, options: options)
            _ = try await client.call(Methods.putPreferences, .with {
                $0.preferences.timeZone = "UTC"
                $0.preferences.notifyTime = String(format: "%02d:%02d", minuteAgo.hour!, minuteAgo.minute!)
            }, options: options)
            _ = try await client.call(Methods.putSchedule, .with {
                $0.schedule.plantID = "p1"
                $0.schedule.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly }
            }, options: options)
        }
    }

    /// The reminder ids the hook received, once `distinct` different ones arrived (or 30 s passed) and a second more.
    private static func received(_ distinct: Int, at hook: FakeHTTPServer) async throws -> [String] {
        let ids = { hook.requests.compactMap { $0.headers["x-plantguide-reminder-id"] } }
        let clock = ContinuousClock()
        let end = clock.now + .seconds(30)
        while Set(ids()).count < distinct && clock.now < end { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .seconds(1))
        return ids()
    }

    @Test("two replicas, both dispatching: each of 20 reminders reaches its webhook once")
    func eachReminderOnce() async throws {
        let database = try await TestPostgres.environment()
        let hook = try FakeHTTPServer { _ in .reply(status: 204) }
        defer { hook.stop() }
        let replicas = [try await Self.replica(database), try await Self.replica(database)]
        let client = try RPCClient(target: replicas.map(\.endpoint).joined(separator: ","), configuration: .forTests)
        defer { client.close() }

        try await Self.remindSoon(users: 0..<20, through: client, hook: hook)
        let ids = try await Self.received(20, at: hook)

        #expect(ids.count == 20 && Set(ids).count == 20, "\(ids.count) deliveries of \(Set(ids).count) reminders")
        for replica in replicas { #expect(await replica.terminate() == 0) }
    }

    @Test("a replica killed while delivering: another sends what it had claimed once the lease ends; only deliveries cut off in flight go twice")
    func killedReplica() async throws {
        let database = try await TestPostgres.environment()
        let first = Atomic<Bool>(true)
        // The first delivery hangs: the replica that makes it is killed in the middle of it.
        let hook = try FakeHTTPServer { _ in first.exchange(false, ordering: .relaxed) ? .hang : .reply(status: 204) }
        defer { hook.stop() }
        let doomed = try await Self.replica(database)
        let client = try RPCClient(target: doomed.endpoint, configuration: .forTests)
        defer { client.close() }
        try await Self.remindSoon(users: 0..<5, through: client, hook: hook)
        let clock = ContinuousClock()
        let end = clock.now + .seconds(30)
        while hook.requests.isEmpty && clock.now < end { try await Task.sleep(for: .milliseconds(50)) }
        await doomed.kill()
        let ids = { hook.requests.compactMap { $0.headers["x-plantguide-reminder-id"] } }
        let hung = try #require(ids().first)
        let survivor = try await Self.replica(database)
        // What the dead replica sent: the hung delivery, and any others in flight at the kill (deliveries go out
        // concurrently), whose receipts it may not have written down; some reach the hook just after the kill.
        // The survivor sends nothing the dead one claimed before that claim ends, 15 s after it was made.
        try await Task.sleep(for: .seconds(1))
        let fromTheDead = Set(ids())

        // The hung delivery goes out again once the dead replica's claim ends, 15 s after it was made.
        let deadline = clock.now + .seconds(40)
        while (Set(ids()).count < 5 || ids().filter { $0 == hung }.count < 2) && clock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .seconds(1))
        let received = ids()
        let twice = Set(received.filter { id in received.filter { $0 == id }.count > 1 })

        #expect(Set(received).count == 5, "\(Set(received).count) of 5 reminders delivered")
        #expect(twice.contains(hung), "the hung delivery was not made again: \(received)")
        #expect(twice.isSubset(of: fromTheDead), "a reminder went twice that was not in flight at the kill: \(received)")
        #expect(received.allSatisfy { id in received.filter { $0 == id }.count <= 2 }, "\(received)")
        #expect(await survivor.terminate() == 0)
    }
}
