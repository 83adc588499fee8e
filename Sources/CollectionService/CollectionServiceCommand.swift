import ArgumentParser
import Collection
import PlantGuideServiceKit

/// `plantguide-collection`: collection storage (plants, photos, identification history).
@main
struct CollectionServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plantguide-collection",
        abstract: "PlantGuide collection storage (plants, photos, identification history).",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ (see Protos/) plus /plantguide.health.v1.Health/Check and \
            /plantguide.metrics.v1.Metrics/Scrape. Stops cleanly on SIGTERM or SIGINT.
            Check it with: plantguide rpc health tcp://127.0.0.1:7003
            """)

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        let resolved = try options.resolve(service: "collection", defaultBind: "tcp://127.0.0.1:7003")
        try await runService(name: "plantguide-collection", options: resolved) { environment in
            [CollectionRPCService(configuration: .init(dataDirectory: environment.dataDirectory), logger: environment.logger)]
        }
    }
}
