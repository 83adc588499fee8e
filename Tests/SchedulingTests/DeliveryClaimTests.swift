import Foundation
import PlantGuideProtos
import PlantGuideTestSupport
@testable import Scheduling
import Testing

/// Several dispatchers on one store, as replicas of the scheduling service on one PostgreSQL: deliveries are
/// claimed for a lease, so each goes out once, and the claims of a dispatcher that died pass to another.
@Suite("Reminders: deliveries claimed by one dispatcher of several")
struct DeliveryClaimTests: SchedulingSuite {
    static let start = Date(timeIntervalSince1970: 1_780_297_200)  // 2026-06-01 07:00 UTC
    let clock: TestClock
    let backend: SchedulingBackend
    let store: SchedulingStore

    private func dispatcher() -> ReminderDispatcher {
        let clock = self.clock
        return ReminderDispatcher(records: backend.records, publisher: nil, allowLoopbackReceivers: true, initialBackoff: 2, now: { clock.now })
    }

    /// `users` users, each with a plant due for watering today at 08:00 UTC and a webhook at `hook`.
    private func prepare(users: Int, hook: FakeHTTPServer) async throws {
        for user in 0..<users {
            _ = try await store.putSchedule(.with {
                $0.plantID = "p1"
                $0.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly; $0.fertilizer.frequency = .none }
            }, owner: "u\(user)")
            try await store.registerWebhook(id: "h1", url: hook.baseURL.appendingPathComponent("hook").absoluteString,
                                            secret: "0123456789abcdef-secret", owner: "u\(user)")
        }
    }

    @Test("three dispatchers running at once deliver each of 30 reminders to its webhook once", arguments: TestBackend.allCases)
    func eachDeliveryOnce(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let hook = try FakeHTTPServer { _ in .reply(status: 204) }
        defer { hook.stop() }
        try await t.prepare(users: 30, hook: hook)
        let dispatchers = [t.dispatcher(), t.dispatcher(), t.dispatcher()]
        t.clock.advance(seconds: 3_600)

        var delivered = 0
        for _ in 0..<3 {
            async let first = dispatchers[0].runOnce()
            async let second = dispatchers[1].runOnce()
            async let third = dispatchers[2].runOnce()
            delivered += try await [first, second, third].map(\.delivered).reduce(0, +)
        }

        let ids = hook.requests.compactMap { $0.headers["x-plantguide-reminder-id"] }
        #expect(delivered == 30 && ids.count == 30)
        #expect(Set(ids).count == 30, "a reminder went out twice")
    }

    @Test("deliveries claimed by a dispatcher that died go out from another once the lease ends, not before", arguments: TestBackend.allCases)
    func deadClaimerLeavesItsDeliveries(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let hook = try FakeHTTPServer { _ in .reply(status: 204) }
        defer { hook.stop() }
        try await t.prepare(users: 3, hook: hook)
        t.clock.advance(seconds: 3_600)
        let time = t.clock.now.timeIntervalSince1970
        _ = try await t.backend.records.collectDueReminders(at: time, maxLateness: 3_600, publishing: false)
        // A dispatcher claims the deliveries, then dies before making them.
        let claimed = try await t.backend.records.claimDueDeliveries(at: time, lease: ReminderDispatcher.deliveryLease, limit: 200)
        let survivor = t.dispatcher()

        t.clock.advance(seconds: ReminderDispatcher.deliveryLease - 1)
        let during = try await survivor.runOnce()
        t.clock.advance(seconds: 1)
        let after = try await survivor.runOnce()

        #expect(claimed.count == 3 && during.delivered == 0 && after.delivered == 3)
        #expect(Set(hook.requests.compactMap { $0.headers["x-plantguide-reminder-id"] }) == Set(claimed.map(\.reminderID)))
    }

    @Test("the running dispatcher delivers concurrently: a receiver that never answers holds up only its own reminder",
          arguments: TestBackend.allCases)
    func slowReceiverDelaysOnlyItself(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        // u0's webhook never answers (until the server stops); the others' answer at once.
        let hook = try FakeHTTPServer { request in request.path.hasSuffix("u0") ? .hang : .reply(status: 204) }
        for user in 0..<6 {
            _ = try await t.store.putSchedule(.with {
                $0.plantID = "p1"
                $0.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly; $0.fertilizer.frequency = .none }
            }, owner: "u\(user)")
            try await t.store.registerWebhook(id: "h1", url: hook.baseURL.appendingPathComponent("hook/u\(user)").absoluteString,
                                              secret: "0123456789abcdef-secret", owner: "u\(user)")
        }
        t.clock.advance(seconds: 3_600)
        let dispatcher = t.dispatcher()
        let running = Task { await dispatcher.run(every: .milliseconds(50), store: t.store) }
        // Every request has arrived, u0's too (it is sent beside the others, so it may reach the server after them).
        let othersArrived = await hook.wait(timeout: TestTime.scaled(.seconds(30))) { requests in
            Set(requests.map(\.path)).isSuperset(of: (0..<6).map { "/hook/u\($0)" })
        }
        // Sent one after another, the others would come only after u0's delivery had timed out (and been counted).
        let slowAttempts = try await t.backend.integer(
            sqlite: "SELECT attempts FROM delivery JOIN reminder ON reminder.id = delivery.reminderID WHERE reminder.ownerID = 'u0'",
            postgres: "SELECT attempts::int8 FROM delivery WHERE owner_id = 'u0'")
        #expect(othersArrived, "the other receivers' reminders did not arrive")
        #expect(slowAttempts == 0, "the others went out only after the hanging receiver's delivery had ended")
        #expect(hook.requests.filter { $0.path == "/hook/u0" }.count == 1)
        hook.stop()
        running.cancel()
        await running.value
    }
}
