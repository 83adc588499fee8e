import Foundation
import GRDB
import PlantGuideProtos
import PlantGuideTestSupport
@testable import Scheduling
import Testing

/// The methods the app's screens need over a user's whole set of schedules: list, rename, counts per plant,
/// delete everything.
@Suite("Scheduling: a user's schedules as a whole", .cleansUp)
struct UserSchedulesTests: SchedulingSuite {
    static let start = Date(timeIntervalSince1970: 1_780_297_200)  // 2026-06-01 07:00 UTC
    let clock: TestClock
    let backend: SchedulingBackend
    let store: SchedulingStore

    private func put(_ plant: String, owner: String = "a") async throws {
        _ = try await store.putSchedule(.with {
            $0.plantID = plant
            $0.plantName = "Monty \(plant)"
            $0.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly; $0.fertilizer.frequency = .none }
        }, owner: owner)
    }

    @Test("ListSchedules pages through every schedule in plant order, without repeats; bad pages are refused", arguments: TestBackend.allCases)
    func listSchedules(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        for plant in ["p3", "p1", "p5", "p2", "p4"] { try await t.put(plant) }
        try await t.put("q1", owner: "b")
        var seen: [String] = []
        var token = ""
        var pages = 0
        repeat {
            let (page, next) = try await t.store.schedules(pageSize: 2, pageToken: token, owner: "a")
            seen += page.map(\.plantID)
            token = next
            pages += 1
        } while !token.isEmpty && pages < 10
        #expect(seen == ["p1", "p2", "p3", "p4", "p5"] && pages == 3)
        await #expect(throws: SchedulingError.self) { _ = try await t.store.schedules(pageSize: 501, pageToken: "", owner: "a") }
        await #expect(throws: SchedulingError.self) { _ = try await t.store.schedules(pageSize: 2, pageToken: "o4", owner: "a") }
    }

    @Test("RenamePlant changes the name, and reminders collected afterwards carry it", arguments: TestBackend.allCases)
    func rename(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        try await t.put("p1")
        let renamed = try await t.store.rename(plantID: "p1", to: "  Fernando  ", owner: "a")
        #expect(renamed.plantName == "Fernando")
        await #expect(throws: SchedulingError.self) { _ = try await t.store.rename(plantID: "p1", to: " ", owner: "a") }
        await #expect(throws: SchedulingError.self) { _ = try await t.store.rename(plantID: "nope", to: "Fern", owner: "a") }
        t.clock.advance(seconds: 3_600)  // 08:00, the watering reminder is due
        let clock = t.clock
        _ = try await ReminderDispatcher(records: t.backend.records, publisher: nil, allowLoopbackReceivers: true, now: { clock.now }).runOnce()
        let messages = try await t.backend.data(sqlite: "SELECT message FROM reminder", postgres: "SELECT message FROM reminder")
        let names = try messages.map { try Plantguide_Scheduling_V1_Reminder(serializedBytes: $0).plantName }
        #expect(names == ["Fernando"])
    }

    @Test("GetPlantTaskCounts counts overdue, today and upcoming per plant, with zeros for plants asked for", arguments: TestBackend.allCases)
    func counts(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        try await t.put("p1")
        try await t.put("p2")
        t.clock.advance(seconds: 2 * 86_400)  // two days on: the first waterings are overdue
        let all = try await t.store.taskCounts(plantIDs: [], owner: "a")
        #expect(Set(all.keys) == ["p1", "p2"])
        #expect(all["p1"]?.overdue == 1 && all["p1"]?.today == 0 && (all["p1"]?.upcoming ?? 0) >= 3)
        let some = try await t.store.taskCounts(plantIDs: ["p2", "unknown"], owner: "a")
        #expect(Set(some.keys) == ["p2", "unknown"] && some["unknown"] == .init() && some["p2"]?.overdue == 1)
        await #expect(throws: SchedulingError.self) {
            _ = try await t.store.taskCounts(plantIDs: (0...1_000).map { "p\($0)" }, owner: "a")
        }
    }

    @Test("DeleteUserData removes schedules, tasks, reminders, webhooks and preferences of the caller only", arguments: TestBackend.allCases)
    func deleteUserData(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        try await t.put("p1")
        try await t.put("p2")
        try await t.put("q1", owner: "b")
        _ = try await t.store.putPreferences(.with { $0.notifyTime = "06:30"; $0.timeZone = "Europe/Berlin" }, owner: "a")
        try await t.store.registerWebhook(id: "h1", url: "http://127.0.0.1:9/hook", secret: "0123456789abcdef-secret", owner: "a")
        let (schedules, tasks) = try await t.store.deleteAll(owner: "a")
        #expect(schedules == 2 && tasks > 0)
        #expect(try await t.store.schedules(pageSize: 0, pageToken: "", owner: "a").0.isEmpty)
        let preferences = try await t.store.preferences(owner: "a")
        #expect(preferences.notifyTime == "08:00" && preferences.timeZone == "UTC", "back to the defaults")
        let left = (try await t.backend.integer(sqlite: "SELECT COUNT(*) FROM webhook WHERE ownerID = 'a'",
                                                postgres: "SELECT count(*) FROM webhook WHERE owner_id = 'a'") ?? -1,
                    try await t.backend.integer(sqlite: "SELECT COUNT(*) FROM task WHERE ownerID = 'a'",
                                                postgres: "SELECT count(*) FROM task WHERE owner_id = 'a'") ?? -1)
        #expect(left == (0, 0))
        #expect(try await t.store.schedules(pageSize: 0, pageToken: "", owner: "b").0.map(\.plantID) == ["q1"])
        #expect(try await t.store.deleteAll(owner: "a") == (0, 0))
    }

    @Test("PutPreferences with a mask changes only the named fields; without one an empty time zone keeps the stored zone", arguments: TestBackend.allCases)
    func preferencesMask(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        _ = try await t.store.putPreferences(.with {
            $0.notifyTime = "06:30"
            $0.timeZone = "Europe/Berlin"
            $0.taskTypes = [.with { $0.type = .repotting; $0.enabled = true }]
        }, owner: "a")
        let (masked, _) = try await t.store.putPreferences(.with { $0.notifyTime = "07:15"; $0.timeZone = "Asia/Tokyo" },
                                                         mask: .init(protoPaths: ["notifyTime"]), owner: "a")
        #expect(masked.notifyTime == "07:15" && masked.timeZone == "Europe/Berlin" && masked.taskTypes.count == 1)
        let (replaced, _) = try await t.store.putPreferences(.with { $0.groupWateringDays = true }, owner: "a")
        #expect(replaced.timeZone == "Europe/Berlin" && replaced.notifyTime == "07:15", "empty means keep, never UTC")
        #expect(replaced.taskTypes.isEmpty && replaced.groupWateringDays, "the rest is replaced")
        #expect(try await t.store.preferences(owner: "a") == replaced)
        let fresh = try await t.store.putPreferences(.with { $0.remindDaysBefore = 1 }, mask: .init(protoPaths: ["remind_days_before"]), owner: "b").0
        #expect(fresh.timeZone == "UTC" && fresh.notifyTime == "08:00" && fresh.remindDaysBefore == 1, "a new user's defaults")
        await #expect(throws: SchedulingError.self) {
            _ = try await t.store.putPreferences(.init(), mask: .init(protoPaths: ["owner"]), owner: "a")
        }
    }
}
