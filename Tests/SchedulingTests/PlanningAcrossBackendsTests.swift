import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideStorage
import PlantGuideTestSupport
@testable import Scheduling
import Testing

/// Planning on PostgreSQL reads a plant's history without the owner's lock and has `replan` check it again
/// (``PostgresScheduling/putSchedule(_:owner:at:)``): these show that it plans exactly as SQLite does, in time
/// zones whose today is not UTC's, and that a plan made from an overtaken read is refused and made again.
@Suite("Scheduling: planning on PostgreSQL as on SQLite")
struct PlanningAcrossBackendsTests {
    private static func schedule(_ plant: String) -> SchedulingStore.Schedule {
        .with {
            $0.plantID = plant
            $0.careInfo = .with {
                $0.scientificName = "Monstera deliciosa"
                $0.watering.frequency = .twiceWeekly
                $0.fertilizer.frequency = .weekly
                $0.fertilizer.activeMonths = Array(1...12)
            }
        }
    }

    /// A week of a gardener who waters some days late and saves the schedule again each evening, in `zone`;
    /// every plan the store answered, and the open tasks at the end.
    private static func week(on kind: TestBackend, zone: String) async throws -> [[String]] {
        let backend = try await SchedulingBackend(kind)
        // 2026-06-01 11:30 UTC: already June 2 in Kiritimati (+14), still May 31 in Pago Pago (-11) at 00:30.
        let clock = TestClock(start: Date(timeIntervalSince1970: 1_780_313_400))
        let store = backend.store(clock: clock)
        _ = try await store.putPreferences(.with { $0.timeZone = zone }, owner: "g")
        var answers: [[String]] = []
        for day in 0..<7 {
            if let postgres = backend.records as? PostgresScheduling {
                // The history picked from the lock-free read is the one read under the lock (or a save would
                // always fall back to planning under the lock).
                let (basis, locked) = try await postgres.database.read { session in
                    let basis = try await PostgresScheduling.planBasis(session, plantID: "p1", owner: "g", at: clock.now)
                    let today = try #require(basis).today
                    return (basis, try await PostgresScheduling.history(session, plantID: "p1", owner: "g", today: today))
                }
                #expect(basis?.history == locked, "day \(day)")
            }
            let (_, planned) = try await store.putSchedule(schedule("p1"), owner: "g")
            answers.append(planned.map { "\($0.id) \($0.dueDate) \($0.state)" })
            if day % 3 == 1, let due = planned.first(where: { $0.type == .watering }) {
                _ = try await store.complete(ids: [due.id], at: clock.now, owner: "g")
            }
            clock.advance(days: 1)
            clock.advance(seconds: Double(day) * 3_600)  // saved at a later hour each day, across local midnight
        }
        // The views that depend on the owner's today (the first read of this process guesses it from UTC).
        for view in [Plantguide_Scheduling_V1_ListTasksRequest.View.overdue, .today, .due, .upcoming, .unspecified] {
            answers.append(try await store.list(.with { $0.view = view }, owner: "g").tasks.map { "\($0.id) \($0.dueDate) \($0.state)" })
        }
        let badge = try await store.badge(owner: "g")
        answers.append(["badge \(badge.overdue) \(badge.today)"])
        return answers
    }

    @Test("the same plans on both backends, where today is a day ahead of UTC, behind it, or UTC's",
          arguments: ["Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC", "America/Los_Angeles"])
    func samePlans(zone: String) async throws {
        let sqlite = try await Self.week(on: .sqlite, zone: zone)
        let postgres = try await Self.week(on: .postgres, zone: zone)
        #expect(sqlite.count == 13 && sqlite[0..<7].allSatisfy { !$0.isEmpty } && !sqlite[10].isEmpty)
        #expect(postgres == sqlite)
    }

    @Test("a plan made from a read that a completion overtook is refused (a serialization failure: ABORTED); saving plans again")
    func overtakenPlan() async throws {
        let backend = try await SchedulingBackend(.postgres)
        let clock = TestClock(start: Date(timeIntervalSince1970: 1_780_300_800))
        let store = backend.store(clock: clock)
        let records = try #require(backend.records as? PostgresScheduling)
        let (_, first) = try await store.putSchedule(Self.schedule("p1"), owner: "g")
        clock.advance(days: 3)

        let basis = try #require(try await records.database.read { session in
            try await PostgresScheduling.planBasis(session, plantID: "p1", owner: "g", at: clock.now)
        })
        _ = try await store.complete(ids: [first[0].id], at: clock.now, owner: "g")
        let refused = await #expect(throws: StorageError.self) {
            _ = try await records.database.read { session in
                try await PostgresScheduling.replan(session, "p1", owner: "g", today: basis.today, tasks: [], storing: nil, checking: basis)
            }
        }
        let (_, planned) = try await store.putSchedule(Self.schedule("p1"), owner: "g")

        #expect(refused?.kind == .conflict && refused?.rpcError.code == .aborted)
        #expect(!planned.isEmpty && !planned.contains { $0.id == first[0].id })
        #expect(try await store.list(.init(), owner: "g").tasks.map(\.id) == planned.map(\.id))
    }
}
