import ArgumentParser
import Foundation
import Logging
import PlantGuideHTTP
import PlantGuideStorage
import PlantGuideTestSupport
import Scheduling
import Synchronization

/// Reminder delivery under a burst: `users` users with `plants` plants each, every plant's watering reminding in the
/// same minute, each user with a webhook on one local receiver, `slowShare` of the users' webhooks answering only
/// after `slowMs`. Measures, at the receiver, how long after the due time each reminder arrived, on SQLite (one
/// dispatcher) and on PostgreSQL (`replicas` dispatchers, each with its own connection pool, as replicas are); and
/// on PostgreSQL, a replica that dies holding a claim (it claims a batch and never sends it): when the others send
/// what it held.
struct RemindersBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reminders", abstract: "Time reminder delivery in a burst.")

    @Option(help: "PostgreSQL URL (Scripts/postgres-throwaway); password in PLANTGUIDE_DATABASE_PASSWORD.") var database: String?
    @Option(help: "Users.") var users = 250
    @Option(help: "Plants per user (each one reminder).") var plants = 4
    @Option(help: "Share of users whose webhook answers slowly.") var slowShare = 0.08
    @Option(help: "How slowly, in ms.") var slowMs = 2_000
    @Option(help: "Dispatchers on PostgreSQL.") var replicas = 2
    @Option(help: "Milliseconds between a dispatcher's rounds (the service's default is 1000).") var intervalMs = 1_000

    /// What the receiver saw: each reminder id's first arrival, and how many arrived in all.
    final class Receiver: Sendable {
        final class Arrivals: Sendable {
            let times = Mutex<[String: [Double]]>([:])
        }
        let arrivals = Arrivals()
        let slowUsers: Set<String>
        let server: FakeHTTPServer

        init(slowUsers: Set<String>, slowMs: Int) throws {
            self.slowUsers = slowUsers
            let arrivals = self.arrivals
            server = try FakeHTTPServer { request in
                let id = request.headers["x-plantguide-reminder-id"] ?? ""
                let time = Date().timeIntervalSince1970
                arrivals.times.withLock { $0[id, default: []].append(time) }
                let user = String(request.path.split(separator: "/").last ?? "")
                return slowUsers.contains(user) ? .delayed(.milliseconds(slowMs), .reply(status: 204)) : .reply(status: 204)
            }
        }
    }

    /// One scenario's outcome.
    struct Outcome {
        var name: String
        var fast: [Double]
        var slow: [Double]
        var duplicates: Int
        var missing: Int
        /// Seconds from the dead replica's claim to the arrival of each delivery it held.
        var afterClaim: [Double] = []
    }

    func run() async throws {
        var logger = Logger(label: "plantguide-bench")
        logger.logLevel = .warning
        var outcomes: [Outcome] = []
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reminders-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let sqlite = try SQLiteScheduling.open(folder: folder, logger: logger)
        outcomes.append(try await burst("SQLite, 1 dispatcher", stores: [sqlite]))
        if let database {
            let password = try StorageOptions.password()
            /// One connection pool per replica on a new schema, as replicas of the service have.
            func replicaPools() async throws -> [PostgresStorage] {
                let schema = "bench_reminders_\(UInt32.random(in: 0...UInt32.max))"
                var pools: [PostgresStorage] = []
                for _ in 0..<replicas {
                    pools.append(try await PostgresStorage.open(try PostgresSettings(url: database, password: password, poolSize: 4, schema: schema),
                                                                migrations: PostgresScheduling.migrations, logger: logger, operationTimeout: .seconds(600)))
                }
                return pools
            }
            let pools = try await replicaPools()
            outcomes.append(try await burst("PostgreSQL, \(replicas) dispatchers", stores: pools.map { PostgresScheduling($0) }))
            let killPools = try await replicaPools()
            outcomes.append(try await burst("PostgreSQL, one of \(replicas) dies holding a claim", stores: killPools.map { PostgresScheduling($0) },
                                            abandonFirstClaim: true))
            for pool in pools + killPools { await pool.close() }
        }
        print(Self.table(outcomes, slowMs: slowMs))
    }

    /// Plans the burst on `stores` (one database, one store per dispatcher), runs a dispatcher on each, and waits
    /// until every reminder arrived (or two minutes after the due time).
    private func burst(_ name: String, stores: [any SchedulingRecords], abandonFirstClaim: Bool = false) async throws -> Outcome {
        let userIDs = (0..<users).map { "u\($0)" }
        let slowUsers = Set(userIDs.filter { _ in Double.random(in: 0..<1) < slowShare })
        let receiver = try Receiver(slowUsers: slowUsers, slowMs: slowMs)
        defer { receiver.server.stop() }
        let store = SchedulingStore(records: stores[0])
        // The due minute: the next one at least 40 s away (setting up takes a while), never across midnight UTC.
        var due = (Date().timeIntervalSince1970 / 60 + 1).rounded(.up) * 60
        while due - Date().timeIntervalSince1970 < 40 { due += 60 }
        if Int(due) % 86_400 < 180 {
            FileHandle.standardError.write(Data("  waiting for midnight UTC to pass...\n".utf8))
            try await Task.sleep(for: .seconds(Int(due) % 86_400 + 200))
            return try await burst(name, stores: stores, abandonFirstClaim: abandonFirstClaim)
        }
        let minute = Int(due) % 86_400 / 60
        let notify = String(format: "%02d:%02d", minute / 60, minute % 60)
        FileHandle.standardError.write(Data("  \(name): planning \(users * plants) reminders due at \(notify) UTC...\n".utf8))
        for user in userIDs {
            _ = try await store.putPreferences(.with { $0.timeZone = "UTC"; $0.notifyTime = notify }, mask: .init(protoPaths: ["time_zone", "notify_time"]),
                                               owner: user)
            try await store.registerWebhook(id: "h", url: receiver.server.baseURL.appendingPathComponent("hook/\(user)").absoluteString,
                                            secret: "0123456789abcdef-bench", owner: user)
            for plant in 0..<plants {
                _ = try await store.putSchedule(.with {
                    $0.plantID = "p\(plant)"
                    $0.plantName = "Plant \(plant) of \(user)"
                    $0.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly; $0.fertilizer.frequency = .none }
                }, owner: user)
            }
        }
        let expected = users * plants
        let dispatchers = stores.map {
            ReminderDispatcher(records: $0, publisher: nil, allowLoopbackReceivers: true)
        }
        var abandoned: (time: Double, ids: Set<String>)?
        if abandonFirstClaim {
            // The dying replica: at the due time it claims what it can, then is gone.
            try await Task.sleep(for: .seconds(max(0, due - Date().timeIntervalSince1970)))
            _ = try await stores[0].collectDueReminders(at: Date().timeIntervalSince1970, maxLateness: 12 * 3_600, publishing: false)
            let claimTime = Date().timeIntervalSince1970
            let claimed = try await stores[0].claimDueDeliveries(at: claimTime, lease: ReminderDispatcher.deliveryLease, limit: 200)
            abandoned = (claimTime, Set(claimed.map(\.reminderID)))
            FileHandle.standardError.write(Data("  the dying replica claimed \(claimed.count) deliveries\n".utf8))
        }
        let running = dispatchers.dropFirst(abandonFirstClaim ? 1 : 0).map { dispatcher in
            Task { await dispatcher.run(every: .milliseconds(intervalMs), store: store) }
        }
        let deadline = due + 120
        while Date().timeIntervalSince1970 < deadline {
            if receiver.arrivals.times.withLock({ $0.count }) >= expected, Date().timeIntervalSince1970 > due + Double(slowMs) / 1_000 + 3 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        for task in running { task.cancel() }
        for task in running { await task.value }
        let arrivals = receiver.arrivals.times.withLock { $0 }
        var outcome = Outcome(name: name, fast: [], slow: [], duplicates: 0, missing: expected - arrivals.count)
        for (id, times) in arrivals {
            outcome.duplicates += times.count - 1
            // "r:<owner>:<task>:<due seconds>"
            let owner = id.split(separator: ":").dropFirst().first.map(String.init) ?? ""
            let lateness = (times.min() ?? due) - due
            if slowUsers.contains(owner) { outcome.slow.append(lateness) } else { outcome.fast.append(lateness) }
            if let abandoned, abandoned.ids.contains(id) { outcome.afterClaim.append((times.min() ?? due) - abandoned.time) }
        }
        return outcome
    }

    private static func table(_ outcomes: [Outcome], slowMs: Int) -> String {
        func value(_ values: [Double], _ q: Double) -> Double? {
            let sorted = values.sorted()
            return sorted.isEmpty ? nil : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
        }
        func quantile(_ values: [Double], _ q: Double) -> String { value(values, q).map { String(format: "%.2f", $0) } ?? "-" }
        var lines = ["", "Reminders: seconds from the due time to arrival at the receiver (target: p99 ≤ 2 s for receivers that answer at once)", "",
                     "| scenario | receivers | reminders | p50 s | p99 s | max s | duplicates | missing |",
                     "|---|---|---|---|---|---|---|---|"]
        for outcome in outcomes {
            lines.append("| \(outcome.name) | answering at once | \(outcome.fast.count) | \(quantile(outcome.fast, 0.5)) | \(quantile(outcome.fast, 0.99)) | "
                         + "\(quantile(outcome.fast, 1)) | \(outcome.duplicates) | \(outcome.missing) |")
            lines.append("| | answering after \(slowMs) ms | \(outcome.slow.count) | \(quantile(outcome.slow, 0.5)) | \(quantile(outcome.slow, 0.99)) | "
                         + "\(quantile(outcome.slow, 1)) | | |")
        }
        for outcome in outcomes where !outcome.afterClaim.isEmpty {
            lines.append("")
            lines.append("\(outcome.name): the \(outcome.afterClaim.count) deliveries the dead replica held went out \(quantile(outcome.afterClaim, 0)) to "
                         + "\(quantile(outcome.afterClaim, 1)) s after its claim (target: within the claim's \(Int(ReminderDispatcher.deliveryLease)) s + 2 s)")
        }
        if let base = outcomes.first.flatMap({ value($0.fast, 0.99) }), base > 0 {
            lines.append("")
            lines.append("p99 (answering at once) over the first row's: "
                         + outcomes.map { "\($0.name) \(String(format: "%.2fx", (value($0.fast, 0.99) ?? 0) / base))" }.joined(separator: "; "))
        }
        return lines.joined(separator: "\n")
    }
}
