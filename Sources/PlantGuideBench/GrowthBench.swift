import ArgumentParser
import Collection
import Foundation
import GRDB
import PlantGuideProtos
import Scheduling
import SwiftProtobuf
import Synchronization

/// What one user's calls cost as their collection grows and as other users' data grows beside it: the stores of
/// collection and scheduling, called in-process on real SQLite files, for a user with 10, 100 and 1,000 plants, in
/// databases holding that user alone and holding also `--others` users of `--others-plants` plants each.
///
/// In-process on purpose: the RPC hops a call makes through the gateway cost the same whatever the data, and
/// leaving them out shows the part that could grow. "Save a plant" and "plant details" are the store calls the
/// gateway's use cases make (add, read back, plan; read the plant, its schedule and open tasks).
struct GrowthBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "growth", abstract: "Time the app's calls for users of 10, 100 and 1,000 plants, alone and beside many other users.")

    @Option(help: "Plant counts of the measured user, comma-separated.") var sizes = "10,100,1000"
    @Option(help: "Other users in the crowded databases.") var others = 10_000
    @Option(help: "Plants of each other user.") var othersPlants = 10
    @Option(help: "Most calls timed per call kind and case.") var calls = 300
    @Option(help: "Most seconds spent timing one call kind in one case.") var seconds = 2.0
    @Option(help: "Folder for the databases (removed at the end).") var folder = ".build-bench/growth"

    static let species: [(String, String)] = [
        ("Monstera deliciosa", "Swiss cheese plant"), ("Ficus lyrata", "Fiddle-leaf fig"), ("Epipremnum aureum", "Golden pothos"),
        ("Ocimum basilicum", "Sweet basil"), ("Sansevieria trifasciata", "Snake plant"), ("Aloe vera", "Aloe"),
        ("Rosa hybrids", "Rose"), ("Solanum lycopersicum", "Tomato"), ("Phalaenopsis amabilis", "Moth orchid"),
        ("Crassula ovata", "Jade plant"), ("Lavandula angustifolia", "English lavender"), ("Hedera helix", "English ivy"),
    ]

    /// The calls measured, and whether their answer grows with the user's plants (exempt from the 1.2x target).
    static let kinds: [(name: String, answerGrows: Bool)] = [
        ("save a plant", false), ("PutSchedule", false), ("CompleteTasks", false), ("ListTasks (one plant)", false),
        ("ListTasks (today)", true), ("ListPlants (page of 10)", false), ("SearchPlants (top 3)", false), ("GetPlantDetails", false),
        ("calendar feed (poll, unchanged)", false), ("calendar feed (rendered)", true),
    ]

    func run() async throws {
        let sizes = self.sizes.split(separator: ",").compactMap { Int($0) }
        guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 }) else { throw ValidationError("--sizes: plant counts, comma-separated") }
        let root = URL(fileURLWithPath: folder)
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)

        let clock = ContinuousClock()
        var started = clock.now
        let crowded = root.appendingPathComponent("crowded")
        try await Self.makeCrowd(in: crowded, users: others, plants: othersPlants)
        log("\(others) other users of \(othersPlants) plants each written in \(clock.now - started)")

        var results: [String: [Int: (p50: Double, rate: Double)]] = [:]  // kind -> case index -> figures
        var cases: [String] = []
        for (crowd, base) in [("alone", nil), ("+\(others) users", crowded)] {
            for size in sizes {
                let index = cases.count
                cases.append("\(size), \(crowd)")
                let caseFolder = root.appendingPathComponent("case-\(index)")
                try FileManager.default.createDirectory(at: caseFolder, withIntermediateDirectories: true)
                if let base {
                    for name in ["collection.sqlite", "scheduling.sqlite"] {
                        try FileManager.default.copyItem(at: base.appendingPathComponent(name), to: caseFolder.appendingPathComponent(name))
                    }
                }
                started = clock.now
                let subject = try await Subject(folder: caseFolder, plants: size)
                log("case \(cases[index]): the user's plants written in \(clock.now - started)")
                for (kind, figures) in try await subject.measure(calls: calls, seconds: seconds) {
                    results[kind, default: [:]][index] = figures
                }
                try FileManager.default.removeItem(at: caseFolder)
            }
        }
        print(Self.table(results, cases: cases))
    }

    /// The crowd: `users` users ("o0"…) of `plants` plants each, copied by SQL from one user made through the stores.
    static func makeCrowd(in folder: URL, users: Int, plants: Int) async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let template = try await Subject(folder: folder, plants: plants, owner: "template")
        let numbers = "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(users - 1))"
        try await template.collectionDatabase.write { db in
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('plant') WHERE name NOT IN ('rowid', 'ownerID')")
                .joined(separator: ", ")
            try db.execute(sql: """
                \(numbers) INSERT INTO plant (ownerID, \(columns)) SELECT 'o' || n.i, \(columns) FROM plant, n WHERE ownerID = 'template'
                """)
        }
        try await template.schedulingDatabase.write { db in
            for table in ["schedule", "task", "preferences"] {
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('\(table)') WHERE name <> 'ownerID'")
                    .joined(separator: ", ")
                try db.execute(sql: """
                    \(numbers) INSERT INTO \(table) (ownerID, \(columns)) SELECT 'o' || n.i, \(columns) FROM \(table), n WHERE ownerID = 'template'
                    """)
            }
            // A reminder per task, as years of use leave them (the outbox is never emptied of delivered ones).
            try db.execute(sql: """
                INSERT INTO reminder (id, ownerID, taskID, message, createdAt)
                SELECT 'r:' || ownerID || ':' || id, ownerID, id, x'00', 0 FROM task WHERE ownerID <> 'template'
                """)
            try db.execute(sql: "INSERT INTO delivery (reminderID, receiver, state, nextAttemptAt) SELECT id, 'pub', 1, 0 FROM reminder")
        }
        try await template.deleteAll()
    }

    static func table(_ results: [String: [Int: (p50: Double, rate: Double)]], cases: [String]) -> String {
        var lines = ["| call | " + cases.map { "p50 ms (\($0))" }.joined(separator: " | ") + " | largest / smallest p50 | calls/s (smallest → largest) |",
                     "|---|" + String(repeating: "---|", count: cases.count + 2)]
        for (kind, grows) in kinds {
            guard let row = results[kind] else { continue }
            let p50s = cases.indices.map { row[$0]?.p50 ?? .nan }
            let ratio = (p50s.last ?? .nan) / (p50s.first ?? .nan)
            let verdict = grows ? " (answer grows)" : ratio <= 1.2 ? " ✔" : " ✘"
            lines.append("| \(kind) | " + p50s.map { String(format: "%.3f", $0) }.joined(separator: " | ")
                         + String(format: " | %.2fx%@ | %.0f → %.0f |", ratio, verdict, row[0]?.rate ?? 0, row[cases.count - 1]?.rate ?? 0))
        }
        return lines.joined(separator: "\n")
    }
}

/// One measured user's databases and stores.
struct Subject {
    let owner: String
    let plantCount: Int
    let collectionDatabase: DatabasePool
    let schedulingDatabase: DatabasePool
    let plants: PlantStore
    let schedules: SchedulingStore
    let clock = BenchClock()

    init(folder: URL, plants count: Int, owner: String = "me") async throws {
        self.owner = owner
        plantCount = count
        collectionDatabase = try CollectionDatabase.open(path: folder.appendingPathComponent("collection.sqlite").path)
        schedulingDatabase = try SchedulingDatabase.open(path: folder.appendingPathComponent("scheduling.sqlite").path)
        let clock = self.clock
        plants = PlantStore(records: SQLiteCollection(writer: collectionDatabase, photoFolder: folder.appendingPathComponent("photos")), now: { clock.now })
        schedules = SchedulingStore(records: SQLiteScheduling(writer: schedulingDatabase), now: { clock.now })
        _ = try await schedules.putPreferences(.with { $0.notifyTime = "08:00"; $0.timeZone = "Europe/Paris" }, owner: owner)
        for index in 0..<count { try await save("p\(index)", index) }
    }

    static func plant(_ id: String, _ index: Int) -> Plantguide_Collection_V1_Plant {
        let (scientific, common) = GrowthBench.species[index % GrowthBench.species.count]
        return .with {
            $0.id = id
            $0.scientificName = scientific
            $0.commonNames = [common]
            $0.genus = String(scientific.prefix { $0 != " " })
            $0.location = ["Kitchen", "Living room", "Balcony", "Office"][index % 4]
            $0.notes = index % 3 == 0 ? "repotted in spring" : ""
        }
    }

    static func schedule(_ id: String, _ index: Int) -> SchedulingStore.Schedule {
        .with {
            $0.plantID = id
            $0.plantName = GrowthBench.species[index % GrowthBench.species.count].1
            $0.includePruning = index % 4 == 0
            $0.careInfo = .with {
                $0.scientificName = GrowthBench.species[index % GrowthBench.species.count].0
                $0.watering.frequency = [.twiceWeekly, .weekly, .biweekly][index % 3]
                $0.fertilizer.frequency = .biweekly
                $0.fertilizer.activeMonths = Array(1...12)
            }
        }
    }

    /// Saving a plant as the gateway does: add it, read it back, plan its schedule.
    func save(_ id: String, _ index: Int) async throws {
        _ = try await plants.add(Self.plant(id, index), owner: owner)
        _ = try await plants.plant(id: id, owner: owner)
        _ = try await schedules.putSchedule(Self.schedule(id, index), owner: owner)
    }

    func deleteAll() async throws {
        _ = try await plants.deleteAll(owner: owner)
        _ = try await schedules.deleteAll(owner: owner)
    }

    /// Times every kind of call, each on plants spread over the user's collection.
    func measure(calls: Int, seconds: Double) async throws -> [String: (p50: Double, rate: Double)] {
        var results: [String: (p50: Double, rate: Double)] = [:]
        func time(_ kind: String, prepare: (Int) async throws -> Void = { _ in }, _ call: (Int) async throws -> Void,
                  cleanUp: (Int) async throws -> Void = { _ in }) async throws {
            let clock = ContinuousClock()
            var samples: [Duration] = []
            var deadline = clock.now
            // Up to ten calls warm up (a second at most); then calls are timed until `calls` or `seconds`, one at least.
            let warmUpEnd = clock.now + .seconds(1)
            var index = 0
            var warming = true
            while samples.isEmpty || (samples.count < calls && clock.now < deadline) {
                try await prepare(index)
                let start = clock.now
                try await call(index)
                if !warming { samples.append(clock.now - start) }
                try await cleanUp(index)
                index += 1
                if warming, index >= 10 || clock.now >= warmUpEnd {
                    warming = false
                    deadline = clock.now + .milliseconds(Int64(seconds * 1_000))
                }
            }
            let sorted = samples.sorted()
            let total = samples.reduce(Duration.zero, +)
            results[kind] = (Double(sorted[sorted.count / 2].nanoseconds) / 1e6, Double(samples.count) / (Double(total.nanoseconds) / 1e9))
        }
        let spread = { (index: Int) in (index * 7_919) % plantCount }  // a different plant each call
        try await time("save a plant", { index in try await save("new\(index)", index) }, cleanUp: { index in
            _ = try await plants.delete(id: "new\(index)", owner: owner)
            _ = try await schedules.deleteSchedules(plantID: "new\(index)", owner: owner)
        })
        try await time("PutSchedule") { index in
            _ = try await schedules.putSchedule(Self.schedule("p\(spread(index))", spread(index)), owner: owner)
        }
        try await time("ListTasks (one plant)") { index in
            _ = try await schedules.list(.with { $0.plantID = "p\(spread(index))" }, owner: owner)
        }
        try await time("ListTasks (today)") { _ in _ = try await schedules.list(.with { $0.view = .today }, owner: owner) }
        // Answers of the same size in every case: the first page of 10, and the best 3 of the plants in one of
        // four rooms (a quarter of the user's plants match).
        try await time("ListPlants (page of 10)") { _ in
            _ = try await plants.list(.with { $0.sort = .name; $0.pageSize = 10 }, owner: owner)
        }
        try await time("SearchPlants (top 3)") { index in
            _ = try await plants.search(["kitchen", "living", "balcony", "office"][index % 4], limit: 3, owner: owner)
        }
        try await time("GetPlantDetails") { index in
            _ = try await plants.plant(id: "p\(spread(index))", owner: owner)
            _ = try await schedules.schedule(plantID: "p\(spread(index))", owner: owner, includeOpenTasks: true)
        }
        let current = try await schedules.calendarFeed(days: 60, ifVersion: "", owner: owner).version
        try await time("calendar feed (poll, unchanged)") { _ in
            guard try await schedules.calendarFeed(days: 60, ifVersion: current, owner: owner).notModified else {
                throw ValidationError("the feed changed while nothing did")
            }
        }
        try await time("calendar feed (rendered)") { _ in
            // A store of its own each time: nothing rendered before, as after every change.
            let store = SchedulingStore(records: SQLiteScheduling(writer: schedulingDatabase), now: { clock.now })
            _ = try await store.calendarFeed(days: 60, ifVersion: "", owner: owner)
        }
        // Last, as it moves the clock: a day passes before each completion (completing the same plant's future
        // tasks again and again, at one instant, would use up its plan).
        var openTask = ""
        try await time("CompleteTasks", prepare: { index in
            clock.advance(days: 1)
            openTask = try await schedules.list(.with { $0.plantID = "p\(spread(index))"; $0.limit = 1 }, owner: owner).tasks.first?.id ?? ""
        }, { _ in
            _ = try await schedules.complete(ids: [openTask], at: nil, owner: owner)
        })
        return results
    }
}

/// The time the measured stores see: now, moved on by the benchmark.
final class BenchClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func advance(days: Double) { offset.withLock { $0 += days * 86_400 } }
}

private func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
