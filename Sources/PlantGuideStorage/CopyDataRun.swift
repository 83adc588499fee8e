import ArgumentParser
import Foundation
import Logging

/// What every service's `copy-data` command does around its copy: checks the SQLite file is there, opens (and
/// migrates) the PostgreSQL it copies into, prints each table's ``CopyCheck``, and exits 1 unless every row
/// arrived unchanged.
public enum CopyDataRun {
    /// - Parameters:
    ///   - service: the service's name, for messages ("collection").
    ///   - file: the SQLite database of the deployment being moved.
    ///   - url: the PostgreSQL to copy into (its password from the environment, as the services read it).
    ///   - copy: copies into the opened PostgreSQL and returns the comparison.
    public static func run(
        service: String, from file: URL, to url: String, schema: String, migrations: [PostgresMigration],
        _ copy: (PostgresStorage, Logger) async throws -> [CopyCheck]
    ) async throws {
        guard FileManager.default.fileExists(atPath: file.path) else { throw ValidationError("no \(service) data at \(file.path)") }
        let settings = try PostgresSettings(url: url, password: try StorageOptions.password(), poolSize: 2, schema: schema)
        var logger = Logger(label: "plantguide-\(service)")
        logger.logLevel = .warning
        let database = try await PostgresStorage.open(settings, migrations: migrations, logger: logger, startupWait: .seconds(5))
        print("copying \(file.path) into \(settings)")
        let checks: [CopyCheck]
        do {
            checks = try await copy(database, logger)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
        for check in checks { print(check) }
        guard checks.allSatisfy(\.isComplete) else { throw ExitCode(1) }
        print("done: every row is in PostgreSQL, unchanged")
    }
}
