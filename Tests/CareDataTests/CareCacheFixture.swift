import CareData
import Foundation
import Logging
import PlantGuideStorage
import PlantGuideTestSupport
import Synchronization

/// Where a test's care cache lives on `backend`: a SQLite file in a folder of its own, or a PostgreSQL schema of its
/// own. Each `cache()` opens a cache over it as a new process would (so a second one is a restart). The
/// PostgreSQL pools it opened close when the fixture goes.
final class CareCacheFixture: Sendable {
    let backend: TestBackend
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caredata-\(UUID().uuidString)")
    let settings: PostgresSettings?
    private let opened = Mutex<[PostgresStorage]>([])

    init(_ backend: TestBackend) async throws {
        self.backend = backend
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        settings = backend == .postgres ? try await TestPostgres.settings() : nil
    }

    /// A cache over the fixture's store, and the PostgreSQL store under it (nil on SQLite).
    func open() async throws -> (cache: CareCache, database: PostgresStorage?) {
        guard let settings else { return (try CareCache(path: folder.appendingPathComponent("caredata.sqlite").path), nil) }
        let database = try await TestPostgres.open(settings, migrations: PostgresCareEntries.migrations)
        opened.withLock { $0.append(database) }
        return (CareCache(entries: PostgresCareEntries(database)), database)
    }

    func cache() async throws -> CareCache { try await open().cache }

    /// The store under the caches, read directly (every row as stored).
    func entries() async throws -> any CareEntryStore {
        guard let settings else { return try SQLiteCareEntries(path: folder.appendingPathComponent("caredata.sqlite").path) }
        let database = try await TestPostgres.open(settings, migrations: PostgresCareEntries.migrations)
        opened.withLock { $0.append(database) }
        return PostgresCareEntries(database)
    }

    deinit {
        let pools = opened.withLock { $0 }
        Task { for pool in pools { await pool.close() } }
    }
}
