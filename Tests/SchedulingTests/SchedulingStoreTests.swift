import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPCCore
import PlantGuideTestSupport
import Scheduling
import SwiftProtobuf
import Testing

@Suite("Scheduling: schedules, tasks, preferences")
struct SchedulingStoreTests: SchedulingSuite {
    static let start = Date(timeIntervalSince1970: 1_780_300_800)  // 2026-06-01 08:00 UTC, a Monday
    let clock: TestClock
    let backend: SchedulingBackend
    let store: SchedulingStore

    private func schedule(_ plant: String, watering: Plantguide_Caredata_V1_WateringFrequency = .weekly,
                          fertilizer: Plantguide_Caredata_V1_FertilizerFrequency = .none) -> SchedulingStore.Schedule {
        .with {
            $0.plantID = plant
            $0.plantName = "Monty, the \(plant)"
            $0.careInfo = .with {
                $0.scientificName = "Monstera deliciosa"
                $0.watering.frequency = watering
                $0.fertilizer.frequency = fertilizer
                $0.fertilizer.activeMonths = [4, 5, 6, 7, 8]
            }
        }
    }

    private func waterings(_ tasks: [SchedulingStore.CareTask]) -> [String] {
        tasks.filter { $0.type == .watering }.map(\.dueDate)
    }

    @Test("a schedule plans 30 days from today; putting it again does not duplicate anything", arguments: TestBackend.allCases)
    func plan(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let (_, tasks) = try await t.store.putSchedule(t.schedule("p1", fertilizer: .biweekly), owner: "a")
        let (_, again) = try await t.store.putSchedule(t.schedule("p1", fertilizer: .biweekly), owner: "a")

        #expect(t.waterings(tasks) == ["2026-06-01", "2026-06-08", "2026-06-15", "2026-06-22", "2026-06-29"])
        #expect(tasks.filter { $0.type == .fertilizing }.map(\.dueDate) == ["2026-06-01", "2026-06-15", "2026-06-29"])
        #expect(again.map(\.id) == tasks.map(\.id))
        #expect(tasks.allSatisfy { $0.hasRemindAt && $0.recurring && $0.state == .scheduled })
        #expect(try await t.store.schedule(plantID: "p1", owner: "a").plantName == "Monty, the p1")
    }

    @Test("GetSchedule over RPC answers the stored schedule, passed on encoded, and its open tasks as the store reads them",
          arguments: TestBackend.allCases)
    func getScheduleOverRPC(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        _ = try await t.store.putSchedule(t.schedule("p1", fertilizer: .biweekly), owner: "a")
        let service = SchedulingRPCService(configuration: SchedulingConfiguration(dataDirectory: t.backend.folder), records: t.backend.records)
        var router = RPCRouter()
        router.register(service)
        typealias Methods = Plantguide_Scheduling_V1_SchedulingService
        let outcome = await router.invoke(Methods.getSchedule.path, payload: try Plantguide_Scheduling_V1_GetScheduleRequest.with {
            $0.plantID = "p1"
            $0.includeOpenTasks = true
        }.serializedBytes(), metadata: [RPCServerContext.userIDKey: "a"])
        #expect(outcome.error == nil)
        let answer = try Plantguide_Scheduling_V1_GetScheduleResponse(serializedBytes: outcome.payload ?? Data())
        let stored = try await t.store.schedule(plantID: "p1", owner: "a", includeOpenTasks: true)
        #expect(answer.schedule == stored.schedule && answer.schedule.careInfo.fertilizer.activeMonths == [4, 5, 6, 7, 8])
        #expect(!answer.openTasks.isEmpty && answer.openTasks == stored.openTasks)
    }

    @Test("a schedule with its open tasks: ListTasks' open view of the plant, in one read; completed ones left out", arguments: TestBackend.allCases)
    func scheduleWithOpenTasks(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let (_, tasks) = try await t.store.putSchedule(t.schedule("p1", fertilizer: .biweekly), owner: "a")
        _ = try await t.store.putSchedule(t.schedule("p2"), owner: "a")
        _ = try await t.store.complete(ids: [tasks[0].id], at: nil, owner: "a")

        let found = try await t.store.schedule(plantID: "p1", owner: "a", includeOpenTasks: true)
        let listed = try await t.store.list(.with { $0.view = .open; $0.plantID = "p1" }, owner: "a")
        let without = try await t.store.schedule(plantID: "p1", owner: "a", includeOpenTasks: false)
        #expect(found.openTasks.map(\.id) == listed.tasks.map(\.id) && !found.openTasks.contains { $0.id == tasks[0].id })
        #expect(!found.openTasks.isEmpty && found.openTasks.allSatisfy { $0.plantID == "p1" } && without.openTasks.isEmpty)
    }

    @Test("the horizon moves forward: twenty days later the plan reaches thirty days past the new today", arguments: TestBackend.allCases)
    func rollingHorizon(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        _ = try await t.store.putSchedule(t.schedule("p1"), owner: "a")
        t.clock.advance(days: 20)

        let planned = try await t.store.extendHorizons()
        let upcoming = try await t.store.list(.with { $0.view = .range; $0.fromDate = "2026-06-21"; $0.toDate = "2026-07-20" }, owner: "a")

        #expect(planned == 1)
        #expect(t.waterings(upcoming.tasks) == ["2026-06-22", "2026-06-29", "2026-07-06", "2026-07-13", "2026-07-20"])
        #expect(try await t.store.extendHorizons() == 1)
        #expect(try await t.store.list(.init(), owner: "a").tasks.count == 8, "three overdue and five ahead, nothing twice")
    }

    @Test("on PostgreSQL the daily extension runs once a day across replicas (a second store on the same database skips it)")
    func horizonOncePerDay() async throws {
        let t = try await Self(.postgres)
        _ = try await t.store.putSchedule(t.schedule("p1"), owner: "a")
        let other = t.backend.store(clock: t.clock)

        #expect(try await t.store.extendHorizonsOncePerDay() == 1)
        #expect(try await other.extendHorizonsOncePerDay() == 0, "another replica, the same day")
        t.clock.advance(days: 1)
        #expect(try await other.extendHorizonsOncePerDay() == 1, "the next day, whoever comes first")
        #expect(try await t.store.extendHorizonsOncePerDay() == 0)
    }

    @Test("completing counts the next watering from the completion date; completing twice is a no-op", arguments: TestBackend.allCases)
    func complete(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let (_, tasks) = try await t.store.putSchedule(t.schedule("p1"), owner: "a")
        let first = try #require(tasks.first { $0.dueDate == "2026-06-01" })
        t.clock.advance(days: 2)

        let (completed, planned) = try await t.store.complete(ids: [first.id], at: t.clock.now, owner: "a")
        let again = try await t.store.complete(ids: [first.id], at: t.clock.now, owner: "a")

        #expect(completed.first?.state == .completed)
        #expect(t.waterings(planned) == ["2026-06-10", "2026-06-17", "2026-06-24", "2026-07-01"])
        #expect(again.completed.first?.completedAt == completed.first?.completedAt)
        await #expect(throws: SchedulingError.self) { _ = try await t.store.complete(ids: ["nope"], at: nil, owner: "a") }
    }

    @Test("reopening undoes a completion (the next waterings count from before it again) and a skip; idempotent", arguments: TestBackend.allCases)
    func reopen(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let (_, tasks) = try await t.store.putSchedule(t.schedule("p1"), owner: "a")
        let first = try #require(tasks.first { $0.dueDate == "2026-06-01" })
        t.clock.advance(days: 2)
        let (_, planned) = try await t.store.complete(ids: [first.id], at: t.clock.now, owner: "a")
        #expect(t.waterings(planned) == ["2026-06-10", "2026-06-17", "2026-06-24", "2026-07-01"])

        let reopened = try await t.store.reopen(id: first.id, owner: "a")
        let again = try await t.store.reopen(id: first.id, owner: "a")

        #expect(reopened.state == .scheduled && reopened.dueDate == "2026-06-01" && !reopened.hasCompletedAt, "\(reopened)")
        #expect(again == reopened, "reopening an open task answers it as it is")
        let open = try await t.store.list(.with { $0.view = .open; $0.plantID = "p1" }, owner: "a").tasks
        #expect(t.waterings(open).first == "2026-06-01" && !t.waterings(open).contains("2026-06-10"),
                "the overdue watering is open again and what its completion planned is gone: \(t.waterings(open))")
        let badge = try await t.store.badge(owner: "a")
        #expect(badge.overdue == 1)

        let skipped = try await t.store.skip(id: open[1].id, owner: "a")
        let unskipped = try await t.store.reopen(id: skipped.id, owner: "a")
        #expect(skipped.state == .skipped && unskipped.state == .scheduled)
        // Due today: planning again replaces today's occurrences, and the reopened one is there once.
        let (_, fresh) = try await t.store.putSchedule(t.schedule("p2"), owner: "a")
        let today = try #require(fresh.first { $0.dueDate == "2026-06-03" && $0.type == .watering })
        _ = try await t.store.complete(ids: [today.id], at: t.clock.now, owner: "a")
        _ = try await t.store.reopen(id: today.id, owner: "a")
        let p2 = try await t.store.list(.with { $0.view = .open; $0.plantID = "p2" }, owner: "a").tasks
        #expect(p2.filter { $0.type == .watering && $0.dueDate == "2026-06-03" }.map(\.id) == [today.id], "\(t.waterings(p2))")
        let missing = await #expect(throws: SchedulingError.self) { _ = try await t.store.reopen(id: "nope", owner: "a") }
        let foreign = await #expect(throws: SchedulingError.self) { _ = try await t.store.reopen(id: first.id, owner: "b") }
        #expect(missing?.code == .notFound && foreign?.code == .notFound)
    }

    @Test("views: overdue, today, due (both), upcoming, range; and the badge", arguments: TestBackend.allCases)
    func views(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        _ = try await t.store.putSchedule(t.schedule("p1", watering: .everyOtherDay), owner: "a")
        t.clock.advance(days: 2)  // 06-01 is overdue now, 06-03 is today

        let overdue = try await t.store.list(.with { $0.view = .overdue }, owner: "a").tasks
        let today = try await t.store.list(.with { $0.view = .today }, owner: "a").tasks
        let due = try await t.store.list(.with { $0.view = .due }, owner: "a").tasks
        let upcoming = try await t.store.list(.with { $0.view = .upcoming; $0.limit = 3 }, owner: "a")
        let range = try await t.store.list(.with { $0.view = .range; $0.fromDate = "2026-06-01"; $0.toDate = "2026-06-05" }, owner: "a")
        let badge = try await t.store.badge(owner: "a")

        #expect(overdue.map(\.dueDate) == ["2026-06-01"] && today.map(\.dueDate) == ["2026-06-03"])
        #expect(due.map(\.dueDate) == ["2026-06-01", "2026-06-03"])
        #expect(upcoming.tasks.map(\.dueDate) == ["2026-06-05", "2026-06-07", "2026-06-09"] && upcoming.days.count == 3)
        #expect(range.tasks.map(\.dueDate) == ["2026-06-01", "2026-06-03", "2026-06-05"])
        #expect(badge == (1, 1))
        #expect(try await t.store.counts(from: "2026-06-01", to: "2026-06-07", owner: "a")
            == ["2026-06-01": 1, "2026-06-03": 1, "2026-06-05": 1, "2026-06-07": 1])
    }

    @Test("snooze to a date or by hours, skip, and their refusals", arguments: TestBackend.allCases)
    func snoozeAndSkip(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let (_, tasks) = try await t.store.putSchedule(t.schedule("p1"), owner: "a")
        let first = tasks[0]

        let moved = try await t.store.snooze(id: first.id, hours: nil, until: "2026-06-03", owner: "a")
        let later = try await t.store.snooze(id: tasks[1].id, hours: 4, until: nil, owner: "a")
        let skipped = try await t.store.skip(id: tasks[2].id, owner: "a")
        _ = try await t.store.complete(ids: [tasks[3].id], at: nil, owner: "a")

        #expect(moved.state == .snoozed && moved.dueDate == "2026-06-03" && moved.snoozedUntil == "2026-06-03")
        #expect(later.remindAt.date == t.clock.now.addingTimeInterval(4 * 3_600))
        #expect(skipped.state == .skipped)
        let past = await #expect(throws: SchedulingError.self) { _ = try await t.store.snooze(id: tasks[4].id, hours: nil, until: "2026-05-01", owner: "a") }
        let done = await #expect(throws: SchedulingError.self) { _ = try await t.store.snooze(id: tasks[3].id, hours: 1, until: nil, owner: "a") }
        #expect(past?.code == .invalidArgument && done?.code == .failedPrecondition)
    }

    @Test("'I watered it' completes the open watering task due today", arguments: TestBackend.allCases)
    func careEvent(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        _ = try await t.store.putSchedule(t.schedule("p1"), owner: "a")

        let completed = try await t.store.recordCareEvent(plantID: "p1", type: .watering, at: nil, owner: "a")

        #expect(completed?.dueDate == "2026-06-01" && completed?.state == .completed)
        #expect(try await t.store.badge(owner: "a") == (0, 0))
    }

    @Test("preferences: validated; turning watering off removes its reminders; all schedules are planned again", arguments: TestBackend.allCases)
    func preferences(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        _ = try await t.store.putSchedule(t.schedule("p1"), owner: "a")
        _ = try await t.store.putSchedule(t.schedule("p2"), owner: "a")
        let bad = await #expect(throws: SchedulingError.self) {
            _ = try await t.store.putPreferences(.with { $0.timeZone = "Mars/Olympus" }, owner: "a")
        }

        let (_, replanned) = try await t.store.putPreferences(.with {
            $0.timeZone = "Europe/Berlin"
            $0.notifyTime = "07:30"
            $0.taskTypes = [.with { $0.type = .watering; $0.enabled = false }]
        }, owner: "a")
        let tasks = try await t.store.list(.init(), owner: "a").tasks

        #expect(bad?.code == .invalidArgument && replanned == 2)
        #expect(!tasks.isEmpty && tasks.allSatisfy { !$0.hasRemindAt })
        #expect(try await t.store.preferences(owner: "a").notifyTime == "07:30")
    }

    @Test("one-off tasks; deleting a plant's schedules is idempotent; other users see nothing", arguments: TestBackend.allCases)
    func oneOffDeleteIsolation(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        _ = try await t.store.putSchedule(t.schedule("p1"), owner: "a")
        let added = try await t.store.add(
            .with { $0.id = "t1"; $0.plantID = "p1"; $0.type = .pestControl; $0.dueDate = "2026-06-02"; $0.note = "aphids?" }, owner: "a")

        #expect(added.recurring == false && added.note == "aphids?")
        #expect(try await t.store.list(.init(), owner: "b").tasks.isEmpty)
        await #expect(throws: SchedulingError.self) { _ = try await t.store.skip(id: "t1", owner: "b") }
        #expect(try await t.store.deleteSchedules(plantID: "p1", owner: "a") == 6)
        #expect(try await t.store.deleteSchedules(plantID: "p1", owner: "a") == 0)
        await #expect(throws: SchedulingError.self) { _ = try await t.store.schedule(plantID: "p1", owner: "a") }
    }

    @Test("the calendar feed parses with a real iCalendar parser and names every open task", arguments: TestBackend.allCases)
    func calendarFeed(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        _ = try await t.store.putSchedule(t.schedule("p1", fertilizer: .biweekly), owner: "a")
        let ics = try await t.store.calendar(days: 30, owner: "a")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("feed-\(UUID().uuidString).ics")
        try ics.write(to: file, atomically: true, encoding: .utf8)

        let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", """
            import icalendar, sys
            events = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read()).walk('VEVENT')
            print('\\n'.join(sorted(str(e['SUMMARY']) + ' ' + e['DTSTART'].dt.isoformat() for e in events)))
            """, file.path])
        let lines = outcome.output.split(separator: "\n")

        #expect(outcome.status == 0)
        #expect(lines.count == 8)
        #expect(lines.contains("Water Monty, the p1 2026-06-08") && lines.contains("Fertilise Monty, the p1 2026-06-15"))
    }
}
