@testable import Collection
import Foundation
import GRDB
import Logging
import PlantGuideStorage
import PlantGuideTestSupport
import PostgresNIO
import Synchronization

/// Where a test's collection lives on `backend`: a data folder of its own (SQLite and photo files), or a
/// PostgreSQL schema of its own. Each `records()` opens the records over it as a new process would, so a second one
/// is a restart. The PostgreSQL pools it opened close when it goes.
final class CollectionBackend: Sendable {
    let backend: TestBackend
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("collection-\(UUID().uuidString)")
    let settings: PostgresSettings?
    private let opened = Mutex<[PostgresStorage]>([])

    init(_ backend: TestBackend) async throws {
        self.backend = backend
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        TestResources.track(folder: folder)
        settings = backend == .postgres ? try await TestPostgres.settings() : nil
    }

    /// The collection's records, and the PostgreSQL store under them (nil on SQLite).
    func open() async throws -> (records: any CollectionRecords, database: PostgresStorage?) {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        guard let settings else { return (try SQLiteCollection.open(folder: folder, logger: logger), nil) }
        let database = try await TestPostgres.open(settings, migrations: PostgresCollection.migrations, logger: logger)
        opened.withLock { $0.append(database) }
        return (PostgresCollection(database), database)
    }

    /// A collection service over the records, configured by `configure`.
    func service(_ configure: (inout CollectionConfiguration) -> Void = { _ in }) async throws -> CollectionRPCService {
        var configuration = CollectionConfiguration(dataDirectory: folder)
        configure(&configuration)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let (records, database) = try await open()
        return CollectionRPCService(configuration: configuration, records: records, database: database, logger: logger)
    }

    /// How many photos' bytes are stored: files of distinct photos on SQLite (shared by content across users), rows
    /// of `photo` on PostgreSQL (one per user and content).
    func storedPhotos() async throws -> Int {
        guard let settings else {
            let enumerator = FileManager.default.enumerator(at: folder.appendingPathComponent("photos"), includingPropertiesForKeys: nil)
            let files = (enumerator?.allObjects as? [URL] ?? []).filter { !$0.hasDirectoryPath }
            return Set(files.map { $0.lastPathComponent.prefix(64) }).count
        }
        let database = try await TestPostgres.open(settings, migrations: PostgresCollection.migrations)
        opened.withLock { $0.append(database) }
        return try await database.read { session in try await session.all("SELECT count(*) FROM photo", as: Int.self).first ?? 0 }
    }

    deinit {
        let pools = opened.withLock { $0 }
        Task { for pool in pools { await pool.close() } }
    }
}
