import ArgumentParser
import Foundation
import PlantGuideRPC

/// `plantguide`: the command-line client of a PlantGuide stack.
public struct PlantGuideCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plantguide",
        abstract: "Command-line client of PlantGuide: your plants and tasks through the gateway, and raw RPC for operators.",
        discussion: """
            Start with: plantguide login http://127.0.0.1:7080 <token from plantguide-gateway users add NAME>
            The services run from this executable too: plantguide serve SERVICE (see plantguide serve --help), or as \
            plantguide-SERVICE, a symbolic link to it.
            """,
        subcommands: [
            LoginCommand.self, SignupCommand.self, IdentifyCommand.self, PlantsCommand.self, CareCommand.self, TasksCommand.self, DoneCommand.self,
            ExportCommand.self, ImportCommand.self, ShareCommand.self, UnshareCommand.self, SharesCommand.self,
            RPCCommand.self, LoadtestCommand.self, KeysCommand.self,
        ])

    public init() {}
}

/// `plantguide rpc …`: raw RPC calls, for scripts, health checks and debugging.
struct RPCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc",
        abstract: "Call PlantGuide RPC methods directly (like grpcurl and grpc_health_probe).",
        subcommands: [HealthCommand.self, CallCommand.self, ListCommand.self])
}

/// Options shared by the commands that connect to a service.
struct ConnectionOptions: ParsableArguments {
    @Argument(help: ArgumentHelp(
        "Where the service listens: tcp://HOST:PORT, a comma-separated list, or dns:///NAME:PORT.",
        valueName: "target"))
    var target: String

    @Option(name: .long, help: "Seconds to wait for the answer.")
    var timeout: Double = 5

    @Flag(name: .long, help: "Wait (within the timeout) for the service to come up instead of failing at once.")
    var waitForReady = false

    @Option(name: .long, help: ArgumentHelp(
        "CurveZMQ: this client's secret key, for a service that requires it (env PLANTGUIDE_CURVE_CLIENT_KEY_FILE or "
            + "PLANTGUIDE_CURVE_CLIENT_KEY).", valueName: "path"))
    var curveClientKeyFile: String?

    @Option(name: .long, help: ArgumentHelp(
        "CurveZMQ: the service's public key (env PLANTGUIDE_CURVE_SERVER_KEY_FILE or PLANTGUIDE_CURVE_SERVER_KEY).", valueName: "path"))
    var curveServerKeyFile: String?

    /// A client of the target, with CurveZMQ when its keys are given.
    func client() throws -> RPCClient {
        var configuration = RPCClientConfiguration()
        do {
            configuration.curve = try CurveClientSecurity.resolve(clientKeyFile: curveClientKeyFile, serverKeyFile: curveServerKeyFile,
                                                                  environment: ProcessInfo.processInfo.environment)
        } catch let error as RPCError {
            throw ValidationError(error.message)
        }
        return try RPCClient(target: target, configuration: configuration)
    }
}
