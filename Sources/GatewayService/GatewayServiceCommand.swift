import ArgumentParser
import Gateway
import PlantGuideServiceKit

/// `plantguide-gateway`: gateway (authentication, use cases across services).
@main
struct GatewayServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plantguide-gateway",
        abstract: "PlantGuide gateway (authentication, use cases across services).",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ (see Protos/) plus /plantguide.health.v1.Health/Check and \
            /plantguide.metrics.v1.Metrics/Scrape. Stops cleanly on SIGTERM or SIGINT.
            Check it with: plantguide rpc health tcp://127.0.0.1:7000
            """)

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        let resolved = try options.resolve(service: "gateway", defaultBind: "tcp://127.0.0.1:7000")
        try await runService(name: "plantguide-gateway", options: resolved) { environment in
            [GatewayRPCService(configuration: .init(dataDirectory: environment.dataDirectory), logger: environment.logger)]
        }
    }
}
