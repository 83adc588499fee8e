import Foundation
import GRDB
import Logging
import PlantGuideCore
import PlantGuideStorage
import PlantGuideTestSupport
import PostgresNIO
@testable import Scheduling
import Synchronization

/// Where a test's schedules live on `backend`: a SQLite file in a folder of its own, or a PostgreSQL schema of its
/// own. ``records()`` gives the same records every time (the store and the dispatcher share them, as in the
/// service). The PostgreSQL pool closes when the backend goes.
final class SchedulingBackend: Sendable {
    let backend: TestBackend
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scheduling-\(UUID().uuidString)")
    private let opened: (records: any SchedulingRecords, sqlite: DatabasePool?, postgres: PostgresStorage?)

    init(_ backend: TestBackend) async throws {
        self.backend = backend
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        TestResources.track(folder: folder)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        switch backend {
        case .sqlite:
            // Opening runs migrations and fsyncs: off Swift's cooperative pool (a run pinned to one core stalled
            // it for 17 s on this open, and two deadline tests beside it failed).
            let path = folder.appendingPathComponent("scheduling.sqlite").path
            let database = try await BlockingWork.run { try SchedulingDatabase.open(path: path) }
            opened = (SQLiteScheduling(writer: database), database, nil)
        case .postgres:
            let database = try await TestPostgres.open(try await TestPostgres.settings(), migrations: PostgresScheduling.migrations)
            opened = (PostgresScheduling(database), nil, database)
        }
    }

    var records: any SchedulingRecords { opened.records }

    /// A store on these records whose time is `clock`'s.
    func store(clock: TestClock) -> SchedulingStore {
        SchedulingStore(records: records, now: { clock.now })
    }

    /// A number a query gives: `sqlite` on SQLite, `postgres` on PostgreSQL (for what no store method tells).
    func integer(sqlite: String, postgres: String) async throws -> Int? {
        if let database = opened.sqlite { return try await database.read { db in try Int.fetchOne(db, sql: sqlite) } }
        return try await opened.postgres!.read { session in try await session.all(PostgresQuery(unsafeSQL: postgres), as: Int?.self).first ?? nil }
    }

    /// The byte strings a query gives (as ``integer(sqlite:postgres:)``).
    func data(sqlite: String, postgres: String) async throws -> [Data] {
        if let database = opened.sqlite { return try await database.read { db in try Data.fetchAll(db, sql: sqlite) } }
        return try await opened.postgres!.read { session in try await session.all(PostgresQuery(unsafeSQL: postgres), as: Data.self) }
    }

    deinit {
        if let pool = opened.postgres { Task { await pool.close() } }
    }
}
