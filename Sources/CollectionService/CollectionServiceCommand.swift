import ArgumentParser
import Collection
import Foundation
import Logging
import PlantGuideServiceKit
import PlantGuideStorage

/// `plantguide-collection`: each person's plants, their identification history and care journal; serves by default.
public struct CollectionServiceCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plantguide-collection",
        abstract: "PlantGuide collection storage: plants, photos, search, identification history, care journal (SQLite or PostgreSQL).",
        discussion: "Without a subcommand it serves (see `plantguide-collection serve --help`).",
        subcommands: [Serve.self, CopyData.self],
        defaultSubcommand: Serve.self)

    public init() {}
}

/// `plantguide-collection serve`: the collection RPC service.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the collection over RPC (Protos/plantguide/collection/v1).",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ plus health and metrics. Every call needs the plantguide-user-id \
            metadata. The collection is <data>/collection.sqlite with photo files in <data>/photos, or the \
            schema "collection" of the PostgreSQL that --database names, photos included (several replicas \
            may share it). Stops cleanly on SIGTERM or SIGINT.
            Check it with: plantguide rpc health tcp://127.0.0.1:7003
            """)

    @OptionGroup var options: ServiceOptions
    @OptionGroup var storage: StorageOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let resolved = try options.resolve(service: "collection", defaultBind: "tcp://127.0.0.1:7003", environment: environment)
        let choice = try storage.resolve(service: "collection", environment: environment)
        try await runService(name: "plantguide-collection", options: resolved) { service in
            let configuration = CollectionConfiguration(dataDirectory: service.dataDirectory)
            guard case .postgres(let settings) = choice else {
                return ServiceSet(rpc: [try CollectionRPCService(configuration: configuration, logger: service.logger)],
                                  background: [DatabaseMaintenance()])
            }
            service.logger.info("collection in PostgreSQL", metadata: ["database": "\(settings)"])
            let database = try await PostgresStorage.open(settings, migrations: PostgresCollection.migrations, logger: service.logger)
            let records = PostgresCollection(database)
            return ServiceSet(rpc: [CollectionRPCService(configuration: configuration, records: records, database: database, logger: service.logger)],
                              background: [PostgresStorageService(database)])
        }
    }
}

/// `plantguide-collection copy-data`: a SQLite deployment's collection, photos included, into PostgreSQL.
struct CopyData: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-data",
        abstract: "Copy the collection of a SQLite data folder (photos included) into PostgreSQL, and prove the copy.",
        discussion: """
            Reads <from>/collection.sqlite and the photo files under <from>/photos and writes every plant, \
            identification, journal event, photo (original and thumbnails) and photo link into the PostgreSQL \
            that --to names (the password from PLANTGUIDE_DATABASE_PASSWORD or \
            PLANTGUIDE_DATABASE_PASSWORD_FILE), replacing rows of the same key, so running it again is \
            harmless. Then compares the two table by table and prints the counts and a SHA-256 of each side; \
            exits 1 when a row is missing or different (a photo whose file is gone shows as a missing link). \
            Stop the service first.
            """)

    @OptionGroup var copy: CopyDataOptions

    func run() async throws {
        try await CopyDataRun.run(service: "collection", file: "collection.sqlite", options: copy,
                                  migrations: PostgresCollection.migrations) { database, logger in
            let source = try SQLiteCollection.open(folder: copy.folder, logger: logger)
            return try await CollectionCopy.copy(from: source, to: PostgresCollection(database)) { users in
                print("  \(users) users copied")
            }
        }
    }
}
