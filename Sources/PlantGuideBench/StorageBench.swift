import ArgumentParser
import Collection
import Foundation
import GRDB
import Logging
import PlantGuideProtos
import PlantGuideStorage
import Scheduling

/// The collection's and scheduling's store calls on SQLite and on PostgreSQL, side by side in one run: a database
/// of `users` × `plants` plants (list, search, statistics, adding a plant), a user's schedule writes, and the
/// reminder dispatcher's due-task query over `tasks` pending tasks. Prints one JSON line per call and backend.
struct StorageBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage", abstract: "Time the collection and scheduling stores on SQLite and PostgreSQL (Scripts/bench storage).")

    @Option(help: "PostgreSQL to measure, postgres://USER@HOST:PORT/DB (password from PLANTGUIDE_DATABASE_PASSWORD).") var database: String
    @Option(help: "Users of the collection.") var users = 100
    @Option(help: "Plants per user.") var plants = 1_000
    @Option(help: "Pending tasks for the due-task query.") var tasks = 1_000_000
    @Option(help: "Seconds to measure each call.") var duration = 3.0
    @Option(help: "What to measure: all, collection, scheduling or due (the due-task query).") var part: Part = .all
    @Option(help: "Which backends to measure: both, sqlite or postgres (profiling one).") var backends: Backends = .both

    enum Part: String, ExpressibleByArgument, CaseIterable {
        case all, collection, scheduling, due
    }

    enum Backends: String, ExpressibleByArgument, CaseIterable {
        case both, sqlite, postgres
    }

    func run() async throws {
        var logger = Logger(label: "plantguide-bench")
        logger.logLevel = .warning
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storage-bench-\(UUID().uuidString)")
        for part in ["collection", "scheduling"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(part), withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let password = try StorageOptions.password()
        func postgres(_ schema: String, _ migrations: [PostgresMigration]) async throws -> PostgresStorage {
            try await PostgresStorage.open(try PostgresSettings(url: database, password: password, poolSize: 4, schema: schema),
                                           migrations: migrations, logger: logger, operationTimeout: .seconds(600))
        }
        let collectionPG = try await postgres("bench_collection_\(UInt32.random(in: 0...UInt32.max))", PostgresCollection.migrations)
        let schedulingPG = try await postgres("bench_scheduling_\(UInt32.random(in: 0...UInt32.max))", PostgresScheduling.migrations)
        let backends: [(String, any CollectionRecords, any SchedulingRecords, DueTaskSeeder)] = [
            ("sqlite", try SQLiteCollection.open(folder: folder.appendingPathComponent("collection"), logger: logger),
             try SQLiteScheduling.open(folder: folder.appendingPathComponent("scheduling"), logger: logger),
             .sqlite(try SchedulingDatabase.open(path: folder.appendingPathComponent("due.sqlite").path))),
            ("postgres", PostgresCollection(collectionPG), PostgresScheduling(schedulingPG), .postgres(schedulingPG)),
        ]
        for (name, collection, scheduling, seeder) in backends where self.backends == .both || self.backends.rawValue == name {
            if part == .all || part == .collection {
                try await measureCollection(PlantStore(records: collection),
                                            CollectionArchiver(records: collection, photos: PhotoStore(records: collection)), backend: name)
            }
            if part == .all || part == .scheduling { try await measureScheduling(SchedulingStore(records: scheduling), backend: name) }
            if part == .all || part == .due { try await measureDueQuery(seeder, backend: name) }
            try await time("round trip (SELECT 1, no target)", backend: name) { _ in try await seeder.selectOne() }
        }
        await collectionPG.close()
        await schedulingPG.close()
    }

    /// Times `call` in a closed loop for ``duration`` seconds after a short warm-up and prints the result.
    private func time(_ label: String, backend: String, _ call: (Int) async throws -> Void) async throws {
        for index in 0..<20 { try await call(-1 - index) }
        var samples: [Int64] = []
        let clock = ContinuousClock()
        let end = clock.now + .seconds(duration)
        while clock.now < end || samples.isEmpty {
            let start = clock.now
            try await call(samples.count)
            samples.append((clock.now - start).nanoseconds)
        }
        print(BenchResult(implementation: "\(label) [\(backend)]", payload: 0, inflight: 1, samples: samples,
                          elapsed: .nanoseconds(samples.reduce(0, +))).json)
    }

    private func measureCollection(_ store: PlantStore, _ archiver: CollectionArchiver, backend: String) async throws {
        let clock = ContinuousClock()
        let started = clock.now
        for user in 0..<users {
            let list = (0..<plants).map { SeedCollection.plant($0, user: user) }
            _ = try await archiver.import(try CollectionArchiver.archive(of: list), owner: "u\(user)")
        }
        FileHandle.standardError.write(Data("  \(backend): seeded \(users * plants) plants in \(clock.now - started)\n".utf8))
        let owner = "u\(min(42, users - 1))"
        try await time("list first page", backend: backend) { _ in _ = try await store.list(.with { $0.pageSize = 50; $0.sort = .name }, owner: owner) }
        try await time("list filtered", backend: backend) { _ in
            _ = try await store.list(.with { $0.pageSize = 50; $0.families = ["Araceae"]; $0.favoritesOnly = true }, owner: owner)
        }
        try await time("search prefix", backend: backend) { _ in _ = try await store.search("mon", limit: 20, owner: owner) }
        try await time("search words", backend: backend) { _ in _ = try await store.search("swiss cheese kitchen", limit: 20, owner: owner) }
        try await time("statistics", backend: backend) { _ in _ = try await store.statistics(owner: owner, timeZone: TimeZone(identifier: "UTC")!) }
        try await time("add plant", backend: backend) { index in
            _ = try await store.add(SeedCollection.plant(plants + index + 100, user: 0), owner: "writer")
        }
    }

    private func measureScheduling(_ store: SchedulingStore, backend: String) async throws {
        let schedule = { (plant: String) in
            Plantguide_Scheduling_V1_Schedule.with {
                $0.plantID = plant
                $0.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly; $0.fertilizer.frequency = .monthly }
            }
        }
        for plant in 0..<100 { _ = try await store.putSchedule(schedule("p\(plant)"), owner: "gardener") }
        try await time("PutSchedule (user of 100 plants)", backend: backend) { index in
            _ = try await store.putSchedule(schedule("p\((index + 100) % 100)"), owner: "gardener")
        }
        try await time("ListTasks today", backend: backend) { _ in _ = try await store.list(.with { $0.view = .upcoming; $0.limit = 50 }, owner: "gardener") }
    }

    private func measureDueQuery(_ seeder: DueTaskSeeder, backend: String) async throws {
        let now = Date(timeIntervalSince1970: 1_780_300_800)
        let records = try await seeder.seed(tasks: tasks, due: 100, now: now)
        let dispatcher = ReminderDispatcher(records: records, publisher: nil, now: { now })
        guard try await dispatcher.dueCount() == 100 else { throw ValidationError("\(backend): the due-task query did not find the 100 due tasks") }
        try await time("due-task query (\(tasks) pending)", backend: backend) { _ in _ = try await dispatcher.dueCount() }
    }
}

/// Fills a scheduling database with pending tasks of 10,000 users, `due` of them due now, for the due-task query.
enum DueTaskSeeder {
    case sqlite(DatabasePool)
    case postgres(PostgresStorage)

    func seed(tasks: Int, due: Int, now: Date) async throws -> any SchedulingRecords {
        let time = now.timeIntervalSince1970
        switch self {
        case .sqlite(let database):
            try await database.write { db in
                let statement = try db.makeStatement(sql: """
                    INSERT INTO task (ownerID, id, plantID, kind, state, dueDay, remindAt, recurring) VALUES (?, ?, ?, 1, 1, ?, ?, 1)
                    """)
                for index in 0..<tasks {
                    let remind = index < due ? time - 60 : time + Double(index % 2_592_000) + 60
                    try statement.execute(arguments: ["u\(index % 10_000)", "t\(index)", "p\(index % 100_000)", Int(remind / 86_400), remind])
                }
            }
            return SQLiteScheduling(writer: database)
        case .postgres(let database):
            _ = try await database.write { session in
                try await session.query("""
                    INSERT INTO task (owner_id, id, plant_id, kind, state, due_day, remind_at, recurring)
                    SELECT 'd' || (i % 10000), 't' || i, 'p' || (i % 100000), 1, 1, (remind / 86400)::int, remind, true
                    FROM (SELECT i, CASE WHEN i < \(due) THEN \(time) - 60 ELSE \(time) + (i % 2592000) + 60 END AS remind
                          FROM generate_series(0, \(tasks - 1)) AS i) AS seeded
                    """)
                try await session.query("ANALYZE task")
            }
            return PostgresScheduling(database)
        }
    }
}

extension DueTaskSeeder {
    /// The least a call costs: `SELECT 1` through the backend's pool (for PostgreSQL, a round trip to the server).
    func selectOne() async throws {
        switch self {
        case .sqlite(let database): _ = try await database.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
        case .postgres(let database): _ = try await database.read { session in try await session.all("SELECT 1", as: Int.self) }
        }
    }
}
