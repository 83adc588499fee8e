import ArgumentParser
import Foundation
import GRDB
import Scheduling

/// The reminder dispatcher's due-task query over a database holding many pending tasks.
struct DueQueryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "due-query", abstract: "Time the due-reminder query over many pending tasks.")

    @Option(help: "Pending tasks.") var tasks = 1_000_000
    @Option(help: "Of which due now.") var due = 100
    @Option(help: "Queries timed.") var iterations = 500

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("due-query-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try SchedulingDatabase.open(path: folder.appendingPathComponent("scheduling.sqlite").path)
        let now = Date(timeIntervalSince1970: 1_780_300_800)
        let (total, dueNow) = (tasks, due)
        try await database.write { db in
            let statement = try db.makeStatement(sql: """
                INSERT INTO task (ownerID, id, plantID, kind, state, dueDay, remindAt, recurring) VALUES (?, ?, ?, 1, 1, ?, ?, 1)
                """)
            for index in 0..<total {
                // The first `dueNow` are due; the rest spread over the next 30 days.
                let remind = index < dueNow ? now.timeIntervalSince1970 - 60 : now.timeIntervalSince1970 + Double(index % 2_592_000) + 60
                try statement.execute(arguments: ["u\(index % 10_000)", "t\(index)", "p\(index % 100_000)", Int(remind / 86_400), remind])
            }
        }
        let dispatcher = ReminderDispatcher(records: SQLiteScheduling(writer: database), publisher: nil, now: { now })
        let found = try await dispatcher.dueCount()
        guard found == dueNow else { throw ValidationError("expected \(dueNow) due tasks, found \(found)") }
        var samples: [Int64] = []
        let clock = ContinuousClock()
        for _ in 0..<iterations {
            let start = clock.now
            _ = try await dispatcher.dueCount()
            samples.append((clock.now - start).nanoseconds)
        }
        print(BenchResult(implementation: "due-query-\(total)-pending", payload: dueNow, inflight: 1, samples: samples,
                          elapsed: .nanoseconds(samples.reduce(0, +))).json)
    }
}
