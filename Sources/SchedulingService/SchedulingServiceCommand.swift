import ArgumentParser
import Scheduling
import PlantGuideServiceKit

/// `plantguide-scheduling`: care scheduling (tasks, reminders, calendar).
@main
struct SchedulingServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plantguide-scheduling",
        abstract: "PlantGuide care scheduling (tasks, reminders, calendar).",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ (see Protos/) plus /plantguide.health.v1.Health/Check and \
            /plantguide.metrics.v1.Metrics/Scrape. Stops cleanly on SIGTERM or SIGINT.
            Check it with: plantguide rpc health tcp://127.0.0.1:7004
            """)

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        let resolved = try options.resolve(service: "scheduling", defaultBind: "tcp://127.0.0.1:7004")
        try await runService(name: "plantguide-scheduling", options: resolved) { environment in
            [try SchedulingRPCService(configuration: .init(dataDirectory: environment.dataDirectory), logger: environment.logger)]
        }
    }
}
