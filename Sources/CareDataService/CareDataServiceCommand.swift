import ArgumentParser
import CareData
import PlantGuideServiceKit

/// `plantguide-caredata`: care data (Trefle, cache, offline catalog).
@main
struct CareDataServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plantguide-caredata",
        abstract: "PlantGuide care data (Trefle, cache, offline catalog).",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ (see Protos/) plus /plantguide.health.v1.Health/Check and \
            /plantguide.metrics.v1.Metrics/Scrape. Stops cleanly on SIGTERM or SIGINT.
            Check it with: plantguide rpc health tcp://127.0.0.1:7002
            """)

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        let resolved = try options.resolve(service: "caredata", defaultBind: "tcp://127.0.0.1:7002")
        try await runService(name: "plantguide-caredata", options: resolved) { environment in
            [CareDataRPCService(configuration: .init(dataDirectory: environment.dataDirectory), logger: environment.logger)]
        }
    }
}
