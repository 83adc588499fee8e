import ArgumentParser
import Identification
import PlantGuideServiceKit

/// `plantguide-identification`: plant identification (on-device model, Pl@ntNet, hybrid policy).
@main
struct IdentificationServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plantguide-identification",
        abstract: "PlantGuide plant identification (on-device model, Pl@ntNet, hybrid policy).",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ (see Protos/) plus /plantguide.health.v1.Health/Check and \
            /plantguide.metrics.v1.Metrics/Scrape. Stops cleanly on SIGTERM or SIGINT.
            Check it with: plantguide rpc health tcp://127.0.0.1:7001
            """)

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        let resolved = try options.resolve(service: "identification", defaultBind: "tcp://127.0.0.1:7001")
        try await runService(name: "plantguide-identification", options: resolved) { environment in
            [IdentificationRPCService(configuration: .init(dataDirectory: environment.dataDirectory), logger: environment.logger)]
        }
    }
}
