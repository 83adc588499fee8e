import ArgumentParser
import Foundation
import Identification
import PlantGuideHTTP
import PlantGuideInference
import PlantGuideServiceKit

/// `plantguide-identification`: names plants in photos (serving by default), and checks the ONNX executor.
public struct IdentificationCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plantguide-identification",
        abstract: "PlantGuide plant identification: the on-device model, Pl@ntNet and the hybrid policy.",
        subcommands: [IdentificationServiceCommand.self, CheckOnnxTestCommand.self, InstructionSetsCommand.self],
        defaultSubcommand: IdentificationServiceCommand.self)

    public init() {}
}

/// `plantguide-identification [serve]`: the service.
struct IdentificationServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve identification (the default subcommand).",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ (Protos/plantguide/identification/v1) plus health and metrics. The \
            on-device model comes from the model repository (Scripts/fetch-models installs the default, plant-cnn, \
            an experimental leaf-condition model); Pl@ntNet is the remote option. HYBRID, the default method, runs \
            the model first and asks Pl@ntNet when the model is unsure (or experimental) and a key is set.
            Requests that arrive together are batched for the model (--max-batch, --max-wait-ms); beyond \
            --max-queued images waiting, requests get RESOURCE_EXHAUSTED.
            The model runs on the CPU's best kernels (plantguide-identification instruction-sets lists them); \
            PLANTGUIDE_INFERENCE_ISA=avx2 or portable forces a lower path. Large JPEGs are decoded at 1/8 scale \
            from their DC coefficients on two threads; PLANTGUIDE_JPEG_EIGHTH=off leaves them all to libjpeg-turbo.
            Check it with: plantguide rpc health tcp://127.0.0.1:7001
            """)

    @OptionGroup var options: ServiceOptions
    @OptionGroup var tls: OutboundTLSOptions

    @Option(name: .long, help: ArgumentHelp("Pl@ntNet API key (env PLANTGUIDE_PLANTNET_KEY; prefer the variable).", valueName: "key"))
    var plantnetKey: String?

    @Option(name: .long, help: ArgumentHelp("Pl@ntNet base URL (env PLANTGUIDE_PLANTNET_URL). Default: https://my-api.plantnet.org.", valueName: "url"))
    var plantnetURL: String?

    @Option(name: .long, help: ArgumentHelp(
        "Identifications a day the Pl@ntNet key's plan allows (env PLANTGUIDE_PLANTNET_DAILY_LIMIT); status reports usage against it. Default: 500.",
        valueName: "n"))
    var plantnetDailyLimit: Int?

    @Option(name: .long, help: ArgumentHelp(
        "An on-device answer whose best score is under this is \"no plant recognised\" (0–1, 0 turns it off). Default: 0.05.",
        valueName: "score"))
    var noPlantBelow = 0.05

    @Flag(name: .long, help: "Never call Pl@ntNet (env PLANTGUIDE_OFFLINE=1).")
    var offline = false

    @Option(name: .long, help: ArgumentHelp("The model repository (env PLANTGUIDE_MODELS). Default: ./models.", valueName: "dir"))
    var models: String?

    @Option(name: .long, help: ArgumentHelp(
        "The model to load (env PLANTGUIDE_MODEL). Default: plant-cnn, or the repository's only model; \"none\" for no model.",
        valueName: "name"))
    var model: String?

    @Option(name: .long, help: "Images run through the model together at most.")
    var maxBatch = 8

    @Option(name: .long, help: "Milliseconds the first waiting image waits for others to join its batch.")
    var maxWaitMs = 2

    @Option(name: .long, help: "Threads running the model (each one core).")
    var inferenceWorkers = 1

    @Option(name: .long, help: "Images waiting for the model at most; more are refused with RESOURCE_EXHAUSTED.")
    var maxQueued = 64

    @Option(name: .long, help: "Answers kept for identical photos and settings (0: no cache).")
    var cacheSize = 1_000

    func validate() throws {
        guard (1...256).contains(maxBatch) else { throw ValidationError("--max-batch must be 1–256") }
        guard (0...10_000).contains(maxWaitMs) else { throw ValidationError("--max-wait-ms must be 0–10000") }
        guard (1...64).contains(inferenceWorkers) else { throw ValidationError("--inference-workers must be 1–64") }
        guard maxQueued >= 1 else { throw ValidationError("--max-queued must be at least 1") }
        guard cacheSize >= 0 else { throw ValidationError("--cache-size must not be negative") }
        guard (0...1).contains(noPlantBelow) else { throw ValidationError("--no-plant-below must be 0–1") }
        do { _ = try InferenceISA.configured() } catch { throw ValidationError(error.message) }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        // Identify calls carry up to five photos each: fewer of them are held at once than other services hold.
        let resolved = try options.resolve(
            service: "identification", defaultBind: "tcp://127.0.0.1:7001", limits: (32, 128), environment: environment)
        let urlText = setting(plantnetURL, "PLANTGUIDE_PLANTNET_URL", in: environment) ?? "https://my-api.plantnet.org"
        guard let url = URL(string: urlText), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw ValidationError("Pl@ntNet URL '\(urlText)' is not an http(s) URL")
        }
        var plantnet = PlantNetConfiguration(baseURL: url, apiKey: setting(plantnetKey, "PLANTGUIDE_PLANTNET_KEY", in: environment))
        if let text = setting(plantnetDailyLimit.map(String.init), "PLANTGUIDE_PLANTNET_DAILY_LIMIT", in: environment) {
            guard let limit = Int(text), limit > 0 else { throw ValidationError("the Pl@ntNet daily limit '\(text)' is not a positive number") }
            plantnet.dailyLimit = limit
        }
        let http = CurlHTTPClient(authorities: try tls.resolve(environment: environment))
        var configuration = IdentificationConfiguration(dataDirectory: resolved.dataDirectory, plantnet: plantnet)
        configuration.noPlantThreshold = noPlantBelow
        configuration.offline = offline || environment["PLANTGUIDE_OFFLINE"] == "1"
        configuration.cacheCapacity = cacheSize

        var batching = BatchingConfiguration()
        batching.maxBatchSize = maxBatch
        batching.maxWait = .milliseconds(maxWaitMs)
        batching.workers = inferenceWorkers
        batching.maxQueuedImages = maxQueued
        let classifier = try loadClassifier(environment: environment, batching: batching)
        defer { classifier?.stop() }

        try await runService(name: "plantguide-identification", options: resolved) { _ in
            [IdentificationRPCService(identifier: Identifier(configuration: configuration, classifier: classifier, http: http))]
        }
    }

    /// The configured model, nil when none is installed (the service then answers through Pl@ntNet).
    private func loadClassifier(environment: [String: String], batching: BatchingConfiguration) throws -> OnnxSpeciesClassifier? {
        let repository = ModelRepository(directory: URL(fileURLWithPath: setting(models, "PLANTGUIDE_MODELS", in: environment) ?? "models"))
        let installed = repository.modelNames()
        let requested = setting(model, "PLANTGUIDE_MODEL", in: environment)
        if requested == "none" { return nil }
        guard let name = requested ?? (installed.contains("plant-cnn") ? "plant-cnn" : installed.count == 1 ? installed[0] : nil) else {
            if !installed.isEmpty {
                throw ValidationError("the repository \(repository.directory.path) has several models "
                    + "(\(installed.joined(separator: ", "))): choose one with --model")
            }
            FileHandle.standardError.write(Data(
                "plantguide-identification: no model in \(repository.directory.path) (run Scripts/fetch-models); on-device identification is off\n".utf8))
            return nil
        }
        guard installed.contains(name) else {
            let names = installed.isEmpty ? "none" : installed.joined(separator: ", ")
            throw ValidationError("no model '\(name)' in \(repository.directory.path) (installed: \(names))")
        }
        do { return OnnxSpeciesClassifier(try repository.load(name), batching: batching) } catch {
            throw ValidationError("cannot load model '\(name)': \(error)")
        }
    }
}
