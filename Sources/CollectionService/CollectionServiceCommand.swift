import ArgumentParser
import Collection
import PlantGuideServiceKit
import PlantGuideStorage

/// `plantguide-collection`: each person's plants, their identification history and care journal.
@main
struct CollectionServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plantguide-collection",
        abstract: "PlantGuide collection storage: plants, search, identification history, care journal (SQLite).",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ (Protos/plantguide/collection/v1) plus health and metrics. Every call \
            needs the plantguide-user-id metadata. Stops cleanly on SIGTERM or SIGINT.
            Check it with: plantguide rpc health tcp://127.0.0.1:7003
            """)

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        let resolved = try options.resolve(service: "collection", defaultBind: "tcp://127.0.0.1:7003")
        try await runService(name: "plantguide-collection", options: resolved) { environment in
            ServiceSet(rpc: [try CollectionRPCService(configuration: .init(dataDirectory: environment.dataDirectory), logger: environment.logger)],
                       background: [DatabaseMaintenance()])
        }
    }
}
