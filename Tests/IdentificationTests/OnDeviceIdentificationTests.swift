import Foundation
import Identification
import Logging
import PlantGuideCore
import PlantGuideImaging
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

/// The default model (plant-cnn) behind the service: preprocessing, labels, the experimental flag, the hybrid
/// policy with a fake Pl@ntNet, dynamic batching, the bounded queue and deadlines.
@Suite("On-device identification with the default model", .cpuHeavy, .cleansUp)
struct OnDeviceIdentificationTests {
    typealias Methods = Plantguide_Identification_V1_IdentificationService

    /// The default model, loaded once for every test here (each load holds a few hundred MB while it parses).
    /// Loading takes seconds of CPU, and the tests that arrive meanwhile wait for the first to finish: both
    /// happen on a Dispatch thread, never on the cooperative pool.
    static func installed() async throws -> InstalledModel { try await BlockingWork.run { try loaded.get() } }

    private static let loaded = Result<InstalledModel, any Error> {
        let repository = ModelRepository(directory: ModelFixtures.modelRepository)
        guard repository.modelNames().contains("plant-cnn") else {
            throw ModelFixtures.MissingFixture(message: "no plant-cnn in \(repository.directory.path): run Scripts/fetch-models")
        }
        return try repository.load("plant-cnn")
    }

    private func start(classifier: OnnxSpeciesClassifier, plantnetKey: String? = nil, noPlantThreshold: Double = 0.05,
                       _ respond: @escaping @Sendable (FakeHTTPServer.Request) -> FakeHTTPServer.Response = { _ in .reply(status: 500) })
        throws -> (RPCServer, RPCClient, FakeHTTPServer)
    {
        let plantnet = try FakeHTTPServer(respond: respond)
        var configuration = IdentificationConfiguration(
            dataDirectory: FileManager.default.temporaryDirectory, plantnet: PlantNetConfiguration(baseURL: plantnet.baseURL, apiKey: plantnetKey))
        configuration.noPlantThreshold = noPlantThreshold
        var logger = Logger(label: "identification-test")
        logger.logLevel = .warning
        let identifier = Identifier(configuration: configuration, classifier: classifier)
        let server = RPCServer(configuration: .init(bindEndpoint: "tcp://127.0.0.1:0"),
                               services: [IdentificationRPCService(identifier: identifier)], logger: logger)
        TestResources.track(server)
        try server.startInProcess()  // the model, not sockets, is the subject
        return (server, RPCClient(inProcess: server, configuration: .forTests), plantnet)
    }

    private func request(_ method: Plantguide_Identification_V1_IdentificationMethod, width: Int = 640, height: Int = 480)
        throws -> Plantguide_Identification_V1_IdentifyRequest
    {
        let jpeg = try TestImages.jpeg(TestImages.gradient(width: width, height: height))
        return .with {
            $0.method = method
            $0.images = [.with { $0.data = jpeg; $0.organ = .leaf }]
        }
    }

    @Test("the model repository describes plant-cnn: 38 labelled leaf-condition classes, experimental")
    func repository() async throws {
        let model = try await Self.installed()
        #expect(model.configuration.name == "plant-cnn")
        #expect(model.configuration.task == .leafCondition && model.configuration.isExperimental)
        #expect(model.configuration.input.width == 128 && model.configuration.input.mean == [0.5, 0.5, 0.5])
        #expect(model.labels.count == 38)
        #expect(model.labels[0] == ModelLabel(scientificName: "Malus domestica", commonName: "apple",
                                              extra: ["condition": "Apple scab", "upstream_label": "Apple___Apple_scab"]))
        #expect(model.labels.last?.extra["condition"] == "healthy")
    }

    @Test("ON_DEVICE answers from the model, flagged experimental and low-confidence, with the condition")
    func onDevice() async throws {
        let classifier = OnnxSpeciesClassifier(try await Self.installed())
        defer { classifier.stop() }
        let (server, client, plantnet) = try start(classifier: classifier)
        defer { client.close() }
        let response = try await client.call(Methods.identify, try request(.onDevice))
        let status = try await client.call(Methods.getStatus, .init())

        #expect(response.source == .onDevice && response.model == "plant-cnn@0.1.0")
        #expect(response.experimental && response.lowConfidence)
        #expect(!response.candidates.isEmpty && response.candidates.count <= 5)
        #expect(response.candidates.map(\.score) == response.candidates.map(\.score).sorted(by: >))
        #expect(response.candidates.allSatisfy { $0.attributes["source"] == "on_device" && $0.attributes["condition"] != nil })
        #expect(response.candidates.reduce(0) { $0 + $1.score } <= 1.0001)
        #expect(plantnet.requests.isEmpty)
        #expect(status.models.first?.name == "plant-cnn" && status.models.first?.task == "leaf-condition")
        #expect(status.models.first?.classes == 38 && status.models.first?.experimental == true && status.models.first?.maxBatchSize == 8)
        await server.shutdown()
    }

    @Test("an on-device best score under the threshold is \"no plant recognised\", with no candidates; 0 turns it off")
    func noPlantRecognised() async throws {
        let classifier = OnnxSpeciesClassifier(try await Self.installed())
        defer { classifier.stop() }
        let (strict, strictClient, _) = try start(classifier: classifier, noPlantThreshold: 0.999)
        defer { strictClient.close() }
        let (lenient, lenientClient, _) = try start(classifier: classifier, noPlantThreshold: 0)
        defer { lenientClient.close() }

        let refused = try await strictClient.call(Methods.identify, try request(.onDevice))
        let answered = try await lenientClient.call(Methods.identify, try request(.onDevice))
        let status = try await strictClient.call(Methods.getStatus, .init())

        let best = try #require(answered.candidates.first?.score)
        #expect(best < 0.999 && !answered.noPlantRecognized)
        #expect(refused.noPlantRecognized && refused.candidates.isEmpty && refused.lowConfidence)
        #expect(refused.policyNote.hasSuffix(String(format: "on-device best score %.3f < 0.999: no plant recognised", best)))
        #expect(status.noPlantThreshold == 0.999)
        await strict.shutdown()
        await lenient.shutdown()
    }

    @Test("HYBRID with an experimental model asks Pl@ntNet and merges both, labelled by source")
    func hybridAsksPlantNet() async throws {
        let classifier = OnnxSpeciesClassifier(try await Self.installed())
        defer { classifier.stop() }
        let body = try Fixtures.plantnet("identify-hibiscus")
        let (server, client, plantnet) = try start(classifier: classifier, plantnetKey: "k") { _ in .json(body) }
        defer { client.close() }
        let response = try await client.call(Methods.identify, try request(.hybrid))
        #expect(response.source == .hybrid)
        #expect(response.policyNote == "the on-device model is experimental")
        #expect(response.candidates.first?.scientificName == "Hibiscus rosa-sinensis" && response.candidates.first?.attributes["source"] == "plantnet")
        #expect(response.candidates.dropFirst().allSatisfy { $0.attributes["source"] == "on_device" })
        #expect(!response.lowConfidence, "Pl@ntNet's best answer leads")
        #expect(plantnet.requests.count == 1)
        await server.shutdown()
    }

    @Test("HYBRID falls back to the model's answer when Pl@ntNet is down")
    func hybridWithPlantNetDown() async throws {
        let classifier = OnnxSpeciesClassifier(try await Self.installed())
        defer { classifier.stop() }
        let (server, client, _) = try start(classifier: classifier, plantnetKey: "k") { _ in .reply(status: 503) }
        defer { client.close() }
        let response = try await client.call(Methods.identify, try request(.hybrid))
        #expect(response.source == .onDevice && response.experimental && response.lowConfidence)
        #expect(response.policyNote.hasPrefix("the on-device model is experimental; Pl@ntNet failed"))
        await server.shutdown()
    }

    @Test("a 12-megapixel JPEG is decoded at reduced scale and identified")
    func largePhoto() async throws {
        let classifier = OnnxSpeciesClassifier(try await Self.installed())
        defer { classifier.stop() }
        #expect(classifier.decodeLongSide(width: 4_000, height: 3_000) == 171)
        let (server, client, _) = try start(classifier: classifier)
        defer { client.close() }
        let large = try request(Plantguide_Identification_V1_IdentificationMethod.onDevice, width: 4_000, height: 3_000)
        let response = try await client.call(Methods.identify, large, options: RPCCallOptions(timeout: TestTime.scaled(.seconds(30))))
        #expect(response.source == .onDevice && !response.candidates.isEmpty)
        await server.shutdown()
    }

    @Test("an iPhone HEIC is identified on the device")
    func heicPhoto() async throws {
        let classifier = OnnxSpeciesClassifier(try await Self.installed())
        defer { classifier.stop() }
        let (server, client, _) = try start(classifier: classifier)
        defer { client.close() }
        let heic = try TestImages.heic(TestImages.gradient(width: 1_200, height: 900), rotatedClockwise: true)
        let request = Plantguide_Identification_V1_IdentifyRequest.with {
            $0.method = .onDevice
            $0.images = [.with { $0.data = heic; $0.organ = .leaf }]
        }
        let response = try await client.call(Methods.identify, request, options: RPCCallOptions(timeout: TestTime.scaled(.seconds(30))))
        #expect(response.source == .onDevice && !response.candidates.isEmpty)
        await server.shutdown()
    }

    @Test("requests that arrive together run as one batch")
    func dynamicBatching() async throws {
        // The batch runs when it is full, never because time passed: however late the busy test process starts the
        // four requests, they meet, and none expires.
        var batching = BatchingConfiguration()
        batching.maxBatchSize = 4
        batching.maxWait = .seconds(3_600)
        let classifier = OnnxSpeciesClassifier(try await Self.installed(), batching: batching)
        defer { classifier.stop() }
        let image = TestImages.gradient(width: 128, height: 128)
        let deadline = ContinuousClock.now + .seconds(3_600)
        let results = try await withThrowingTaskGroup(of: [[SpeciesGuess]].self) { group in
            for _ in 0..<4 { group.addTask { try await classifier.classify([image], maxResults: 3, deadline: deadline) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 4 && results.allSatisfy { $0.count == 1 && $0[0] == results[0][0] })
        let statistics = classifier.statistics
        #expect(statistics.batches == 1 && statistics.largestBatch == 4 && statistics.images == 4)
    }

    @Test("beyond the queue's bound requests are refused with RESOURCE_EXHAUSTED; expired ones with DEADLINE_EXCEEDED")
    func overload() async throws {
        // The waiting batch is let go by stopping the worker, once the first's deadline has passed, not by the
        // clock: a busy test process may start the second request seconds after the first.
        var batching = BatchingConfiguration()
        batching.maxBatchSize = 8
        batching.maxWait = .seconds(3_600)
        batching.maxQueuedImages = 2
        let classifier = OnnxSpeciesClassifier(try await Self.installed(), batching: batching)
        defer { classifier.stop() }
        let image = TestImages.gradient(width: 128, height: 128)
        let soon = ContinuousClock.now + .milliseconds(200)
        let later = ContinuousClock.now + .seconds(3_600)
        // Two images wait (the batch is not full and the first has not waited its hour); the third is refused.
        async let first = classifier.classify([image], maxResults: 3, deadline: soon)
        async let second = classifier.classify([image], maxResults: 3, deadline: later)
        let patience = ContinuousClock.now + TestTime.scaled(.seconds(60))
        while classifier.statistics.waiting < 2 && ContinuousClock.now < patience { try await Task.sleep(for: .milliseconds(5)) }
        try #require(classifier.statistics.waiting == 2)
        do {
            _ = try await classifier.classify([image], maxResults: 3, deadline: later)
            Issue.record("the third request was queued beyond the bound")
        } catch let error as RPCError {
            #expect(error.code == .resourceExhausted)
        }
        // The first's deadline passes while it waits for the batch: refused before inference.
        try await Task.sleep(until: soon)
        classifier.stop()
        do {
            _ = try await first
            Issue.record("an expired request was run")
        } catch let error as RPCError {
            #expect(error.code == .deadlineExceeded)
        }
        #expect(try await second.count == 1)
        let statistics = classifier.statistics
        #expect(statistics.refused == 1 && statistics.expired == 1 && statistics.images == 2)
    }
}
