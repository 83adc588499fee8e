import ArgumentParser
import Foundation
import PlantGuideRPC
import PlantGuideServiceKit
import PlantGuideStorage
import Scheduling
import ServiceLifecycle

/// `plantguide-scheduling`: care schedules, tasks, reminders and the calendar feed.
@main
struct SchedulingServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plantguide-scheduling",
        abstract: "PlantGuide care scheduling: schedules, tasks, reminders (PUB stream and webhooks), calendar.",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ (Protos/plantguide/scheduling/v1) plus health and metrics, and publishes \
            reminders on a PUB socket (topic "reminders." + hex SHA-256 of the user id, payload a plantguide.scheduling.v1.Reminder). \
            Stops cleanly on SIGTERM or SIGINT.
            Check it with: plantguide rpc health tcp://127.0.0.1:7004
            """)

    @OptionGroup var options: ServiceOptions

    @Option(name: .long, help: ArgumentHelp(
        "ZeroMQ endpoint of the reminder PUB socket (env PLANTGUIDE_REMINDERS_BIND). Default: tcp://127.0.0.1:7014.",
        valueName: "endpoint"))
    var remindersBind: String?

    @Option(name: .long, help: ArgumentHelp("Milliseconds between reminder rounds (env PLANTGUIDE_REMINDER_INTERVAL_MS). Default: 1000.", valueName: "ms"))
    var reminderIntervalMs: Int?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let resolved = try options.resolve(service: "scheduling", defaultBind: "tcp://127.0.0.1:7004", environment: environment)
        let pubEndpoint = setting(remindersBind, "PLANTGUIDE_REMINDERS_BIND", in: environment) ?? "tcp://127.0.0.1:7014"
        let intervalText = setting(reminderIntervalMs.map(String.init), "PLANTGUIDE_REMINDER_INTERVAL_MS", in: environment) ?? "1000"
        guard let interval = Int(intervalText), (10...60_000).contains(interval) else {
            throw ValidationError("reminder interval must be 10 to 60000 ms, not '\(intervalText)'")
        }
        let publisher = try Publisher(bind: pubEndpoint, curve: resolved.curve)
        try await runService(name: "plantguide-scheduling", options: resolved) { environment in
            let service = try SchedulingRPCService(configuration: .init(dataDirectory: environment.dataDirectory), logger: environment.logger)
            return ServiceSet(
                rpc: [service],
                background: [DatabaseMaintenance(), DispatchLoop(
                    dispatcher: service.dispatcher(publisher: publisher), store: service.store, interval: .milliseconds(interval))])
        }
        publisher.close()
    }
}

/// Runs the reminder dispatcher (and the daily horizon extension) until shutdown.
private struct DispatchLoop: Service {
    let dispatcher: ReminderDispatcher
    let store: SchedulingStore
    let interval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await dispatcher.run(every: interval, store: store)
        }
    }
}
