import ArgumentParser
import Foundation
import Identification
import PlantGuideServiceKit

/// `plantguide-identification`: names plants in photos (serving by default), and checks the ONNX executor.
@main
struct IdentificationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plantguide-identification",
        abstract: "PlantGuide plant identification: the on-device model, Pl@ntNet and the hybrid policy.",
        subcommands: [IdentificationServiceCommand.self, CheckOnnxTestCommand.self],
        defaultSubcommand: IdentificationServiceCommand.self)
}

/// `plantguide-identification [serve]`: the service.
struct IdentificationServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "PlantGuide plant identification: Pl@ntNet and the hybrid policy (the on-device model comes later).",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ (Protos/plantguide/identification/v1) plus health and metrics. No \
            on-device model is installed yet: HYBRID asks Pl@ntNet, ON_DEVICE is refused with FAILED_PRECONDITION.
            Check it with: plantguide rpc health tcp://127.0.0.1:7001
            """)

    @OptionGroup var options: ServiceOptions

    @Option(name: .long, help: ArgumentHelp("Pl@ntNet API key (env PLANTGUIDE_PLANTNET_KEY; prefer the variable).", valueName: "key"))
    var plantnetKey: String?

    @Option(name: .long, help: ArgumentHelp("Pl@ntNet base URL (env PLANTGUIDE_PLANTNET_URL). Default: https://my-api.plantnet.org.", valueName: "url"))
    var plantnetURL: String?

    @Flag(name: .long, help: "Never call Pl@ntNet (env PLANTGUIDE_OFFLINE=1).")
    var offline = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let resolved = try options.resolve(service: "identification", defaultBind: "tcp://127.0.0.1:7001", environment: environment)
        let urlText = setting(plantnetURL, "PLANTGUIDE_PLANTNET_URL", in: environment) ?? "https://my-api.plantnet.org"
        guard let url = URL(string: urlText), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw ValidationError("Pl@ntNet URL '\(urlText)' is not an http(s) URL")
        }
        var configuration = IdentificationConfiguration(
            dataDirectory: resolved.dataDirectory,
            plantnet: PlantNetConfiguration(baseURL: url, apiKey: setting(plantnetKey, "PLANTGUIDE_PLANTNET_KEY", in: environment)))
        configuration.offline = offline || environment["PLANTGUIDE_OFFLINE"] == "1"
        try await runService(name: "plantguide-identification", options: resolved) { _ in
            [IdentificationRPCService(identifier: Identifier(configuration: configuration))]
        }
    }
}
