import Foundation
import PlantGuideProtos
import PlantGuideTestSupport
import Scheduling
import Testing

@Suite("Scheduling: calendar feeds rendered once per change")
struct CalendarFeedTests: SchedulingSuite {
    static let start = Date(timeIntervalSince1970: 1_780_300_800)  // 2026-06-01 08:00 UTC
    let clock: TestClock
    let backend: SchedulingBackend
    let store: SchedulingStore

    private func putSchedule(_ plant: String, name: String = "Monty", owner: String = "a") async throws -> [SchedulingStore.CareTask] {
        try await store.putSchedule(.with {
            $0.plantID = plant
            $0.plantName = name
            $0.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly; $0.fertilizer.frequency = .none }
        }, owner: owner).1
    }

    @Test("a poll after no change renders nothing: the caller's version is not modified, and a poll without one is served from memory",
          arguments: TestBackend.allCases)
    func pollsWithoutChange(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        _ = try await t.putSchedule("p1")
        let first = try await t.store.calendarFeed(days: 60, ifVersion: "", owner: "a")
        let again = try await t.store.calendarFeed(days: 60, ifVersion: "", owner: "a")
        let conditional = try await t.store.calendarFeed(days: 60, ifVersion: first.version, owner: "a")

        #expect(first.ics?.contains("Water Monty") == true && again == first)
        #expect(conditional.notModified && conditional.version == first.version)
        #expect(t.store.feeds.renders == 1)
    }

    @Test("every change a feed shows gives a new version: tasks, names, preferences, another user's changes not", arguments: TestBackend.allCases)
    func changesMakeNewVersions(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let tasks = try await t.putSchedule("p1")
        var versions = [try await t.store.calendarFeed(days: 60, ifVersion: "", owner: "a").version]
        func poll() async throws -> CalendarFeed {
            let feed = try await t.store.calendarFeed(days: 60, ifVersion: versions.last!, owner: "a")
            versions.append(feed.version)
            return feed
        }

        _ = try await t.putSchedule("q1", owner: "b")
        #expect(try await poll().notModified, "another user's schedule is not this feed's change")
        _ = try await t.store.complete(ids: [tasks[0].id], at: nil, owner: "a")
        #expect(try await poll().ics?.contains("Water Monty") == true)
        _ = try await t.store.rename(plantID: "p1", to: "Monstera by the window", owner: "a")
        #expect(try await poll().ics?.contains("Water Monstera by the window") == true)
        _ = try await t.store.putPreferences(.with { $0.notifyTime = "18:00" }, mask: .init(protoPaths: ["notify_time"]), owner: "a")
        #expect(try await poll().ics?.contains("T1800") == true)
        _ = try await t.store.skip(id: tasks[1].id, owner: "a")
        #expect(try await poll().notModified == false)
        t.clock.advance(days: 1)
        #expect(try await poll().notModified == false, "a new day starts the feed a day later")
        #expect(try await t.store.calendarFeed(days: 30, ifVersion: versions.last!, owner: "a").notModified == false)

        #expect(Set(versions).count == versions.count - 1, "\(versions)")
        #expect(t.store.feeds.renders == 7, "one rendering per change, and one for 30 days")
    }
}
