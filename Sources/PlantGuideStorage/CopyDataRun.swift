import ArgumentParser
import Foundation
import Logging

/// The options of every service's `copy-data` command.
public struct CopyDataOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The SQLite deployment's data folder of this service (its --data).", valueName: "folder"))
    public var from: String
    @Option(help: ArgumentHelp("The PostgreSQL to copy into: postgres://USER@HOST:PORT/DATABASE.", valueName: "url"))
    public var to: String
    @Option(help: ArgumentHelp("The schema to copy into. Default: the service's name, as `serve` uses it.", valueName: "name"))
    public var schema: String?

    public init() {}

    /// The deployment's folder.
    public var folder: URL { URL(fileURLWithPath: from) }
}

/// What every service's `copy-data` command does around its copy: checks the SQLite file is there, opens (and
/// migrates) the PostgreSQL it copies into, prints each table's ``CopyCheck``, and exits 1 unless every row
/// arrived unchanged.
public enum CopyDataRun {
    /// - Parameters:
    ///   - service: the service's name ("collection"): the default schema.
    ///   - file: the name of the deployment's SQLite database in the `--from` folder.
    ///   - copy: copies into the opened PostgreSQL and returns the comparison.
    public static func run(
        service: String, file: String, options: CopyDataOptions, migrations: [PostgresMigration],
        _ copy: (PostgresStorage, Logger) async throws -> [CopyCheck]
    ) async throws {
        let file = options.folder.appendingPathComponent(file)
        guard FileManager.default.fileExists(atPath: file.path) else { throw ValidationError("no \(service) data at \(file.path)") }
        let settings = try PostgresSettings(url: options.to, password: try StorageOptions.password(), poolSize: 2, schema: options.schema ?? service)
        var logger = Logger(label: "plantguide-\(service)")
        logger.logLevel = .warning
        let database = try await PostgresStorage.openForCommand(settings, migrations: migrations, logger: logger)
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
