import Foundation
import Logging
import PlantGuideStorage
import GRDB
import PlantGuideProtos
import PlantGuideTestSupport
@testable import Scheduling
import Testing

@Suite("Query plans: scheduling")
struct SchedulingPlanTests {
    /// 2026-06-01 07:00 UTC: reminders at 08:00 fall due after the clock moves an hour.
    let clock = TestClock(start: Date(timeIntervalSince1970: 1_780_297_200))

    static func schedule(_ plant: String) -> SchedulingStore.Schedule {
        .with {
            $0.plantID = plant
            $0.plantName = "Plant \(plant)"
            $0.includePruning = true
            $0.careInfo = .with {
                $0.scientificName = "Monstera deliciosa"
                $0.watering.frequency = .twiceWeekly
                $0.fertilizer.frequency = .biweekly
                $0.fertilizer.activeMonths = [4, 5, 6, 7, 8]
            }
        }
    }

    /// Statements that read a whole table by design (their SQL, or its start and "…"), and why.
    static let scansByDesign = [
        "SELECT ownerID, plantID FROM schedule":
            "the daily horizon extension plans every schedule of every user",
        "SELECT message FROM schedule":
            "the start-up audit of stored values reads every schedule once",
        "SELECT COUNT(*) FROM task WHERE NOT (remindAt < 0…":
            "the start-up audit of stored values reads every task once",
    ]

    /// 40 other users with six schedules each (a webhook for every fourth), so that a scan and a wrong index have
    /// rows to read and ANALYZE has statistics.
    static func seedOthers(_ store: SchedulingStore, hook: FakeHTTPServer) async throws {
        for user in 0..<40 {
            for plant in 0..<6 { _ = try await store.putSchedule(Self.schedule("p\(plant)"), owner: "u\(user)") }
            if user % 4 == 0 {
                try await store.registerWebhook(id: "h", url: hook.baseURL.appendingPathComponent("hook").absoluteString,
                                                secret: "0123456789abcdef-secret", owner: "u\(user)")
            }
        }
    }

    /// Every store method and the dispatcher's rounds, for user "a".
    static func workload(_ store: SchedulingStore, _ dispatcher: ReminderDispatcher, clock: TestClock, hook: FakeHTTPServer) async throws {
        _ = try await store.putPreferences(.with { $0.notifyTime = "08:00"; $0.timeZone = "Europe/Paris"; $0.remindDaysBefore = 1 },
                                           owner: "a")
        _ = try await store.preferences(owner: "a")
        try await store.registerWebhook(id: "h1", url: hook.baseURL.appendingPathComponent("hook").absoluteString,
                                        secret: "0123456789abcdef-secret", owner: "a")
        var tasks: [SchedulingStore.CareTask] = []
        for plant in 0..<6 { tasks += try await store.putSchedule(Self.schedule("p\(plant)"), owner: "a").1 }
        _ = try await store.putPreferences(.with { $0.notifyTime = "07:30"; $0.timeZone = "UTC" }, owner: "a")
        _ = try await store.schedule(plantID: "p0", owner: "a", includeOpenTasks: true)
        _ = try await store.schedules(pageSize: 2, pageToken: "", owner: "a")
        _ = try await store.rename(plantID: "p1", to: "Monty", owner: "a")
        for view in [SchedulingStore.ListRequest.View.open, .overdue, .today, .upcoming] {
            _ = try await store.list(.with { $0.view = view }, owner: "a")
            _ = try await store.list(.with { $0.view = view; $0.plantID = "p2"; $0.types = [.watering] }, owner: "a")
        }
        _ = try await store.list(.with { $0.view = .range; $0.fromDate = "2026-06-01"; $0.toDate = "2026-06-30" }, owner: "a")
        _ = try await store.badge(owner: "a")
        _ = try await store.counts(from: "2026-06-01", to: "2026-06-30", owner: "a")
        _ = try await store.taskCounts(plantIDs: [], owner: "a")
        _ = try await store.taskCounts(plantIDs: ["p0", "p1"], owner: "a")
        _ = try await store.calendar(days: 60, owner: "a")
        _ = try await store.add(.with { $0.id = "repot"; $0.plantID = "p3"; $0.type = .repotting; $0.dueDate = "2026-06-10" }, owner: "a")
        _ = try await store.snooze(id: tasks[1].id, hours: 3, until: nil, owner: "a")
        _ = try await store.snooze(id: tasks[2].id, hours: nil, until: "2026-06-20", owner: "a")
        _ = try await store.skip(id: tasks[3].id, owner: "a")

        // Reminders: due at 08:00 UTC, collected into the outbox and delivered to the webhooks.
        clock.advance(seconds: 3_600)
        _ = try await dispatcher.dueCount()
        _ = try await dispatcher.runOnce()
        _ = try await store.complete(ids: [tasks[0].id], at: nil, owner: "a")
        _ = try await store.recordCareEvent(plantID: "p4", type: .watering, at: nil, owner: "a")
        _ = try await store.recordCareEvent(plantID: "p5", type: .pruning, at: nil, owner: "a")
        clock.advance(days: 3)
        try await store.extendHorizons()
        _ = try await store.deleteWebhook(id: "h1", owner: "a")
        _ = try await store.deleteSchedules(plantID: "p5", owner: "a")
        _ = try await store.deleteAll(owner: "a")
    }

    @Test("SQLite: every statement of the scheduling store and the reminder dispatcher searches by its owner and the most selective index")
    func everyStatement() async throws {
        let audit = QueryPlanAudit()
        let database = try audit.openDatabase(SchedulingDatabase.migrator)
        let clock = self.clock
        let records = SQLiteScheduling(writer: database)
        let store = SchedulingStore(records: records, now: { clock.now })
        let hook = try FakeHTTPServer { _ in .reply(status: 204) }
        defer { hook.stop() }
        let dispatcher = ReminderDispatcher(records: records, publisher: nil, allowLoopbackReceivers: true, initialBackoff: 2, now: { clock.now })
        try await Self.seedOthers(store, hook: hook)

        try await audit.recording {
            try await Self.workload(store, dispatcher, clock: clock, hook: hook)
            _ = try await database.read(SQLiteScheduling.auditStoredValues)
        }

        #expect(audit.statements.count > 40, "the workload ran \(audit.statements.count) distinct statements")
        let findings = try audit.findings(in: database, allowed: Self.scansByDesign)
        #expect(findings.isEmpty, "\(findings.map(\.description).joined(separator: "\n"))")
    }
}

@Suite("Query plans: scheduling on PostgreSQL")
struct SchedulingPostgresPlanTests {
    @Test("PostgreSQL: no statement of the scheduling store and the reminder dispatcher reads a table sequentially")
    func everyStatement() async throws {
        let audit = PostgresPlanAudit()
        let storage = try await TestPostgres.open(try await TestPostgres.settings(), migrations: PostgresScheduling.migrations, observer: audit.observer)
        let clock = TestClock(start: Date(timeIntervalSince1970: 1_780_297_200))
        let records = PostgresScheduling(storage)
        let store = SchedulingStore(records: records, now: { clock.now })
        let hook = try FakeHTTPServer { _ in .reply(status: 204) }
        defer { hook.stop() }
        let dispatcher = ReminderDispatcher(records: records, publisher: nil, allowLoopbackReceivers: true, initialBackoff: 2, now: { clock.now })
        try await SchedulingPlanTests.seedOthers(store, hook: hook)

        try await audit.recording { try await SchedulingPlanTests.workload(store, dispatcher, clock: clock, hook: hook) }

        #expect(audit.statements.count > 40, "the workload ran \(audit.statements.count) distinct statements")
        let findings = try await audit.findings(in: storage)
        await storage.close()
        #expect(findings.isEmpty, "\(findings.map(\.description).joined(separator: "\n"))")
    }
}
