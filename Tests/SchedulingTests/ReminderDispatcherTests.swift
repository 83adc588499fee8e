import Foundation
import GRDB
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
@testable import Scheduling
import Synchronization
import Testing

@Suite("Reminders: outbox, PUB stream, signed webhooks")
struct ReminderDispatcherTests: SchedulingSuite {
    static let start = Date(timeIntervalSince1970: 1_780_297_200)  // 2026-06-01 07:00 UTC
    let clock: TestClock
    let backend: SchedulingBackend
    let store: SchedulingStore

    private func dispatcher(_ publisher: Publisher?, maxAttempts: Int = 8) -> ReminderDispatcher {
        let clock = self.clock
        return ReminderDispatcher(records: backend.records, publisher: publisher, allowLoopbackReceivers: true,
                                  maxAttempts: maxAttempts, initialBackoff: 2, now: { clock.now })
    }

    /// One plant watered weekly (a task due today at 08:00 UTC) and a webhook of user a.
    private func prepare(hook: FakeHTTPServer) async throws {
        _ = try await store.putSchedule(.with {
            $0.plantID = "p1"
            $0.plantName = "Monty"
            $0.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly; $0.fertilizer.frequency = .none }
        }, owner: "a")
        try await store.registerWebhook(id: "h1", url: hook.baseURL.appendingPathComponent("hook").absoluteString,
                                        secret: "0123456789abcdef-secret", owner: "a")
    }

    @Test("a due reminder goes out once to a PUB subscriber and once to a webhook, with a valid signature", arguments: TestBackend.allCases)
    func deliversOnce(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let hook = try FakeHTTPServer { _ in .reply(status: 204) }
        try await t.prepare(hook: hook)
        let publisher = try Publisher(bind: "tcp://127.0.0.1:0")
        let subscriber = RawSubscriber(connectingTo: publisher.endpoint, topic: ReminderTopic.topic(for: "a"))
        // PUB/SUB joins late: publish warm-ups until the subscription is live.
        var joined = false
        for _ in 0..<200 where !joined {
            publisher.publish(topic: ReminderTopic.topic(for: "a"), payload: Array("warm-up".utf8))
            joined = await subscriber.receive(timeoutMs: 50) != nil
        }
        #expect(joined)
        let dispatcher = t.dispatcher(publisher)

        let early = try await dispatcher.runOnce()
        t.clock.advance(seconds: 3_600)
        let due = try await dispatcher.runOnce()
        let again = try await dispatcher.runOnce()

        #expect(early == (0, 0) && due == (1, 2) && again == (0, 0))
        var published: [Plantguide_Scheduling_V1_Reminder] = []
        while let message = await subscriber.receive(timeoutMs: 300) {
            if message.payload != Array("warm-up".utf8) { published.append(try .init(serializedBytes: message.payload)) }
        }
        #expect(published.count == 1)
        #expect(published.first?.task.dueDate == "2026-06-01" && published.first?.plantName == "Monty" && published.first?.userID == "a")
        let request = try #require(hook.requests.first)
        #expect(hook.requests.count == 1)
        #expect(request.headers["x-plantguide-signature"] == WebhookSignature.sign(request.body, secret: "0123456789abcdef-secret"))
        #expect(request.headers["x-plantguide-reminder-id"] == published.first?.id)
        let body = try Plantguide_Scheduling_V1_Reminder(jsonUTF8Data: request.body)
        #expect(body.id == published.first?.id && body.task.id == published.first?.task.id)
        publisher.close()
    }

    @Test("users u1, u10 and u1x: each subscriber receives its own reminders and no one else's", arguments: TestBackend.allCases)
    func topicsDoNotLeakByPrefix(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let users = ["u1", "u10", "u1x"]
        for user in users {
            _ = try await t.store.putSchedule(.with {
                $0.plantID = "p-\(user)"
                $0.plantName = "Monty of \(user)"
                $0.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly; $0.fertilizer.frequency = .none }
            }, owner: user)
        }
        let publisher = try Publisher(bind: "tcp://127.0.0.1:0")
        let subscribers = users.map { RawSubscriber(connectingTo: publisher.endpoint, topic: ReminderTopic.topic(for: $0)) }
        // PUB/SUB joins late: warm up each subscription on its own topic until it is live.
        for (user, subscriber) in zip(users, subscribers) {
            var joined = false
            for _ in 0..<200 where !joined {
                publisher.publish(topic: ReminderTopic.topic(for: user), payload: Array("warm-up".utf8))
                joined = await subscriber.receive(timeoutMs: 50) != nil
            }
            #expect(joined, "\(user) never joined")
        }
        t.clock.advance(seconds: 3_600)
        let (_, delivered) = try await t.dispatcher(publisher).runOnce()
        #expect(delivered == 3)
        for (user, subscriber) in zip(users, subscribers) {
            var received: [String] = []
            while let message = await subscriber.receive(timeoutMs: 300) {
                if message.payload != Array("warm-up".utf8) {
                    received.append(try Plantguide_Scheduling_V1_Reminder(serializedBytes: message.payload).userID)
                }
            }
            #expect(received == [user], "the subscriber of \(user) received reminders of \(received)")
        }
        #expect(ReminderTopic.topic(for: "u1").count == ReminderTopic.topic(for: "u10").count)
        publisher.close()
    }

    @Test("a type's toggle turned off stops scheduled, snoozed and one-off reminders, webhook retries and calendar alarms; on again, they come back",
          arguments: TestBackend.allCases)
    func toggleStopsEveryPath(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let calls = Atomic<Int>(0)
        let failing = Atomic<Bool>(true)
        let hook = try FakeHTTPServer { _ in
            calls.add(1, ordering: .relaxed)
            return failing.load(ordering: .relaxed) ? .reply(status: 500) : .reply(status: 200)
        }
        try await t.prepare(hook: hook)  // p1 watered weekly: a reminder today at 08:00, and a webhook of user a
        let dispatcher = t.dispatcher(nil)
        func setWatering(_ on: Bool) async throws {
            _ = try await t.store.putPreferences(.with { $0.taskTypes = [.with { $0.type = .watering; $0.enabled = on }] },
                                               mask: .init(protoPaths: ["task_types"]), owner: "a")
        }
        func alarms() async throws -> Int { try await t.store.calendar(days: 30, owner: "a").components(separatedBy: "BEGIN:VALARM").count - 1 }
        func deliveries(state: Int) async throws -> Int {
            try await t.backend.integer(sqlite: "SELECT COUNT(*) FROM delivery WHERE state = \(state)",
                                        postgres: "SELECT count(*)::int8 FROM delivery WHERE state = \(state)") ?? -1
        }

        // A webhook retry in flight: today's reminder is collected, its first delivery fails.
        t.clock.advance(seconds: 3_600)  // 08:00
        _ = try await dispatcher.runOnce()
        let pendingRetry = try await deliveries(state: 0)
        #expect(calls.load(ordering: .relaxed) == 1 && pendingRetry == 1)
        // A snoozed task and a one-off task of the same type, due later today.
        _ = try await t.store.add(.with { $0.id = "t1"; $0.plantID = "p1"; $0.type = .watering; $0.dueDate = "2026-06-02" }, owner: "a")
        #expect(try await alarms() > 0)

        try await setWatering(false)
        #expect(try await alarms() == 0, "no calendar alarm for a type that is off")
        t.clock.advance(seconds: 2 * 86_400)  // 2026-06-03: the retry, the one-off's reminder and more are due
        _ = try await dispatcher.runOnce()
        #expect(calls.load(ordering: .relaxed) == 1, "no retry and no new reminder while watering is off")
        let (cancelled, pending) = (try await deliveries(state: DeliveryState.cancelled.rawValue), try await deliveries(state: 0))
        #expect(cancelled == 1 && pending == 0)
        let snoozed = try await t.store.snooze(id: "p1|watering|2026-06-08", hours: 1, until: nil, owner: "a")
        t.clock.advance(seconds: 2 * 3_600)
        _ = try await dispatcher.runOnce()
        #expect(snoozed.state == .snoozed && calls.load(ordering: .relaxed) == 1, "snoozing does not bring the reminder back")

        // On again: reminders due from now on go out, and the calendar alarms are back.
        failing.store(false, ordering: .relaxed)
        try await setWatering(true)
        #expect(try await alarms() > 0)
        _ = try await t.store.add(.with { $0.id = "t2"; $0.plantID = "p1"; $0.type = .watering; $0.dueDate = "2026-06-04" }, owner: "a")
        t.clock.advance(seconds: 86_400)  // 2026-06-04 10:00: t2's reminder (08:00) is due
        _ = try await dispatcher.runOnce()
        #expect(calls.load(ordering: .relaxed) == 2, "the one-off task added after turning it on reminds")
    }

    @Test("per plant and type: fertilising off for one plant stops only its fertilising reminders", arguments: TestBackend.allCases)
    func perPlantTypeToggle(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        for plant in ["p1", "p2"] {
            _ = try await t.store.putSchedule(.with {
                $0.plantID = plant
                $0.plantName = "Plant \(plant)"
                $0.careInfo = .with {
                    $0.scientificName = "Monstera deliciosa"
                    $0.watering.frequency = .weekly
                    $0.fertilizer.frequency = .weekly
                    $0.fertilizer.activeMonths = [6]
                }
            }, owner: "a")
        }
        _ = try await t.store.putPreferences(.with { $0.plantTaskTypes = [.with { $0.plantID = "p1"; $0.type = .fertilizing; $0.enabled = false }] },
                                           mask: .init(protoPaths: ["plant_task_types"]), owner: "a")
        t.clock.advance(seconds: 3_600)  // 08:00: watering and fertilising of both plants are due
        _ = try await t.dispatcher(nil).runOnce()
        let reminded = try await t.backend.data(sqlite: "SELECT message FROM reminder", postgres: "SELECT message FROM reminder")
            .map { try Plantguide_Scheduling_V1_Reminder(serializedBytes: $0).task }
        let pairs = Set(reminded.map { "\($0.plantID) \($0.type)" })
        #expect(pairs == ["p1 watering", "p2 watering", "p2 fertilizing"], "\(pairs)")
        let calendar = try await t.store.calendar(days: 1, owner: "a")
        #expect(calendar.components(separatedBy: "BEGIN:VALARM").count - 1 == 3)
    }

    @Test("a reminder more than 12 hours late is not sent (the task stays overdue); one less late is", arguments: TestBackend.allCases)
    func lateReminders(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let hook = try FakeHTTPServer { _ in .reply(status: 204) }
        try await t.prepare(hook: hook)  // a reminder today at 08:00
        _ = try await t.store.add(.with { $0.id = "t1"; $0.plantID = "p1"; $0.type = .watering; $0.dueDate = "2026-06-02" }, owner: "a")
        t.clock.advance(seconds: 14 * 3_600)  // 21:00: today's reminder is 13 hours late
        let (_, firstDelivered) = try await t.dispatcher(nil).runOnce()
        #expect(firstDelivered == 0 && hook.requests.isEmpty)
        let today = try await t.store.list(.with { $0.view = .today }, owner: "a").tasks
        #expect(today.contains { $0.id == "p1|watering|2026-06-01" && $0.state == .scheduled }, "the task itself stays open")
        t.clock.advance(seconds: 22 * 3_600)  // 2026-06-02 19:00: t1's reminder (08:00) is 11 hours late
        let (_, secondDelivered) = try await t.dispatcher(nil).runOnce()
        #expect(secondDelivered == 1 && hook.requests.count == 1)
    }

    @Test("a new notify time or time zone re-times the reminders of one-off tasks and of tasks snoozed to a date", arguments: TestBackend.allCases)
    func retiming(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let hook = try FakeHTTPServer { _ in .reply(status: 204) }
        try await t.prepare(hook: hook)
        _ = try await t.store.add(.with { $0.id = "t1"; $0.plantID = "p1"; $0.type = .watering; $0.dueDate = "2026-06-03" }, owner: "a")
        _ = try await t.store.snooze(id: "p1|watering|2026-06-01", hours: nil, until: "2026-06-04", owner: "a")
        _ = try await t.store.putPreferences(.with { $0.notifyTime = "06:00"; $0.timeZone = "Europe/Berlin" },
                                           mask: .init(protoPaths: ["notify_time", "time_zone"]), owner: "a")
        let tasks = try await t.store.list(.init(), owner: "a").tasks
        let oneOff = try #require(tasks.first { $0.id == "t1" })
        let snoozed = try #require(tasks.first { $0.id == "p1|watering|2026-06-01" })
        // 06:00 in Berlin (UTC+2 in June) is 04:00 UTC.
        #expect(oneOff.remindAt.seconds == 1_780_459_200)  // 2026-06-03T04:00:00Z
        #expect(snoozed.remindAt.seconds == 1_780_545_600)  // 2026-06-04T04:00:00Z
    }

    @Test("a receiver that fails three times and then answers gets the reminder once, after back-off", arguments: TestBackend.allCases)
    func retries(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let calls = Atomic<Int>(0)
        let hook = try FakeHTTPServer { _ in calls.add(1, ordering: .relaxed).newValue <= 3 ? .reply(status: 500) : .reply(status: 200) }
        try await t.prepare(hook: hook)
        let dispatcher = t.dispatcher(nil)
        t.clock.advance(seconds: 3_600)

        var deliveries: [Int] = []
        for wait in [0.0, 2, 4, 8, 16, 32] {  // the back-off doubles from 2 s
            t.clock.advance(seconds: wait)
            deliveries.append(try await dispatcher.runOnce().delivered)
        }

        #expect(deliveries == [0, 0, 0, 1, 0, 0])
        #expect(hook.requests.count == 4)
        #expect(Set(hook.requests.compactMap { $0.headers["x-plantguide-reminder-id"] }).count == 1)
    }

    @Test("after the last attempt a delivery is dead-lettered and never tried again", arguments: TestBackend.allCases)
    func deadLetter(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let hook = try FakeHTTPServer { _ in .reply(status: 503) }
        try await t.prepare(hook: hook)
        let dispatcher = t.dispatcher(nil, maxAttempts: 3)
        t.clock.advance(seconds: 3_600)

        for _ in 0..<6 {
            _ = try await dispatcher.runOnce()
            t.clock.advance(seconds: 3_600)
        }

        #expect(hook.requests.count == 3)
        let state = try await t.backend.integer(sqlite: "SELECT state FROM delivery", postgres: "SELECT state FROM delivery")
        #expect(state == 2)
    }

    @Test("deleting a plant's schedules cancels its reminders not yet delivered", arguments: TestBackend.allCases)
    func deletionCancels(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let hook = try FakeHTTPServer { _ in .reply(status: 503) }
        try await t.prepare(hook: hook)
        let dispatcher = t.dispatcher(nil)
        t.clock.advance(seconds: 3_600)
        _ = try await dispatcher.runOnce()  // collected, first attempt failed

        _ = try await t.store.deleteSchedules(plantID: "p1", owner: "a")
        t.clock.advance(seconds: 3_600)
        _ = try await dispatcher.runOnce()

        #expect(hook.requests.count == 1)
        #expect(try await t.backend.integer(sqlite: "SELECT COUNT(*) FROM delivery", postgres: "SELECT count(*)::int8 FROM delivery") == 0)
    }

    @Test("webhooks need an http(s) URL and a secret of 16 bytes or more", arguments: TestBackend.allCases)
    func webhookValidation(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        for (url, secret) in [("ftp://x/y", "0123456789abcdef"), ("http://127.0.0.1/h", "short")] {
            await #expect(throws: SchedulingError.self) { try await t.store.registerWebhook(id: "h", url: url, secret: secret, owner: "a") }
        }
        try await t.store.registerWebhook(id: "h", url: "https://example.invalid/h", secret: "0123456789abcdef", owner: "a")
        let first = try await t.store.deleteWebhook(id: "h", owner: "a")
        let second = try await t.store.deleteWebhook(id: "h", owner: "a")
        #expect(first && !second)
    }
}
