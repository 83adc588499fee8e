import Foundation
import Identification
import Logging
import PlantGuideImaging
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Synchronization
import Testing

@Suite("Identify over RPC, through Pl@ntNet", .cpuHeavy, .cleansUp)
struct IdentifyRPCTests {
    typealias Methods = Plantguide_Identification_V1_IdentificationService

    private func start(offline: Bool = false, key: String? = "k", _ respond: @escaping @Sendable (FakeHTTPServer.Request) -> FakeHTTPServer.Response)
        throws -> (RPCServer, RPCClient, FakeHTTPServer)
    {
        let plantnet = try FakeHTTPServer(respond: respond)
        var configuration = IdentificationConfiguration(
            dataDirectory: FileManager.default.temporaryDirectory, plantnet: PlantNetConfiguration(baseURL: plantnet.baseURL, apiKey: key))
        configuration.offline = offline
        var logger = Logger(label: "identification-test")
        logger.logLevel = .warning
        let server = RPCServer(configuration: .init(bindEndpoint: "tcp://127.0.0.1:0"),
                               services: [IdentificationRPCService(identifier: Identifier(configuration: configuration))], logger: logger)
        TestResources.track(server)
        // One attempt per call: these tests are about the service's answer. The client's retries of an
        // UNAVAILABLE (Pl@ntNet's 500) would each resume this suite's task on the two threads that every
        // `.cpuHeavy` test shares, and behind the other suites' heavy work four attempts once took over the
        // 20 s deadline (DEADLINE_EXCEEDED instead of UNAVAILABLE, seen twice in full runs on a fresh machine).
        var clientConfiguration = RPCClientConfiguration.forTests
        clientConfiguration.maxAttempts = 1
        try server.startInProcess()  // identification, not sockets, is the subject
        return (server, RPCClient(inProcess: server, configuration: clientConfiguration), plantnet)
    }

    private func photos(_ count: Int = 2) throws -> [Plantguide_Identification_V1_IdentifyImage] {
        try (0..<count).map { index in
            let jpeg = try TestImages.jpeg(TestImages.gradient(width: 320 + index, height: 240))
            return .with {
                $0.data = jpeg
                $0.organ = index == 0 ? .flower : .leaf
            }
        }
    }

    @Test("hybrid without a model asks Pl@ntNet; the same photos again come from the cache")
    func hybrid() async throws {
        let body = try Fixtures.plantnet("identify-hibiscus")
        let (server, client, plantnet) = try start { _ in .json(body) }
        defer { client.close() }
        let images = try photos()
        let request = Plantguide_Identification_V1_IdentifyRequest.with { $0.images = images; $0.maxResults = 3 }

        let first = try await client.call(Methods.identify, request)
        let second = try await client.call(Methods.identify, request)
        let status = try await client.call(Methods.getStatus, .init())

        #expect(first.source == .plantnet, "\(first.source)")
        #expect(first.candidates.count == 1, "the recorded answer has one result")
        #expect(!first.cached && !first.lowConfidence)
        #expect(first.candidates.first?.scientificName == "Hibiscus rosa-sinensis" && first.candidates.first?.attributes["source"] == "plantnet")
        #expect(first.policyNote == "no on-device model is installed")
        #expect(second.cached && second.candidates == first.candidates)
        #expect(plantnet.requests.count == 1)
        #expect(status.plantnetConfigured && status.plantnetRemainingRequests == 1228 && status.models.isEmpty)
        // The recorded key's plan leaves more than the default 500: the limit follows the report.
        #expect(status.plantnetDailyLimit == 1229 && status.plantnetUsedRequests == 1)
        #expect(status.hasPlantnetQuotaResetsAt && status.plantnetQuotaResetsAt.seconds % 86_400 == 0)
        await server.shutdown()
    }

    @Test("an iPhone HEIC and a WebP reach Pl@ntNet as JPEGs of at most 1,280 pixels; a JPEG goes as it is")
    func convertedForPlantNet() async throws {
        let body = try Fixtures.plantnet("identify-hibiscus")
        let (server, client, plantnet) = try start { _ in .json(body) }
        defer { client.close() }
        let jpeg = try TestImages.jpeg(TestImages.gradient(width: 640, height: 480))
        let photos = [try TestImages.heic(TestImages.gradient(width: 2_000, height: 1_500), rotatedClockwise: true),
                      TestImages.webp(TestImages.gradient(width: 900, height: 600)), jpeg]
        let request = Plantguide_Identification_V1_IdentifyRequest.with { $0.images = photos.map { data in .with { $0.data = data } } }

        let answer = try await client.call(Methods.identify, request, options: RPCCallOptions(timeout: TestTime.scaled(.seconds(30))))
        let sent = try #require(plantnet.requests.first).body
        let parts = Self.files(inMultipart: sent)

        #expect(answer.source == .plantnet)
        #expect(parts.map(\.type) == ["image/jpeg", "image/jpeg", "image/jpeg"], "Pl@ntNet takes JPEG and PNG only")
        let sizes = try parts.map { try ImageDecoder.inspect($0.data) }.map { [$0.width, $0.height] }
        #expect(sizes == [[960, 1_280], [900, 600], [640, 480]], "the HEIC upright and within 1,280; nothing upscaled")
        #expect(parts.last?.data == jpeg)
        await server.shutdown()
    }

    /// The files of a multipart/form-data body: each part's Content-Type and bytes.
    private static func files(inMultipart body: Data) -> [(type: String, data: Data)] {
        let bytes = [UInt8](body)
        let boundary = Array(bytes.prefix { $0 != 0x0D })  // the first line is "--boundary"
        var files: [(String, Data)] = []
        var start = 0
        while let header = bytes[start...].firstRange(of: Array("Content-Type: ".utf8)) {
            let lineEnd = bytes[header.upperBound...].firstIndex(of: 0x0D) ?? bytes.count
            let type = String(decoding: bytes[header.upperBound..<lineEnd], as: UTF8.self)
            let dataStart = lineEnd + 4  // "\r\n\r\n"
            let dataEnd = bytes[dataStart...].firstRange(of: [0x0D, 0x0A] + boundary)?.lowerBound ?? bytes.count
            if type.hasPrefix("image/") { files.append((type, Data(bytes[dataStart..<dataEnd]))) }
            start = dataEnd
        }
        return files
    }

    @Test("the policy's refusals and a bad photo", arguments: ["on-device", "no key", "offline", "bad photo", "six photos"])
    func refusals(kind: String) async throws {
        let (server, client, plantnet) = try start(offline: kind == "offline", key: kind == "no key" ? nil : "k") { _ in .reply(status: 200) }
        defer { client.close() }
        let images = try photos()
        var request = Plantguide_Identification_V1_IdentifyRequest.with { $0.images = images }
        switch kind {
        case "on-device": request.method = .onDevice
        case "offline": request.method = .plantnet
        case "bad photo": request.images[1].data = request.images[1].data.prefix(500)
        case "six photos": request.images = try photos(6)
        default: break
        }

        let error = await #expect(throws: RPCError.self) { _ = try await client.call(Methods.identify, request) }

        let expected: RPCError.Code = ["bad photo", "six photos"].contains(kind) ? .invalidArgument : .failedPrecondition
        #expect(error?.code == expected, "\(kind): \(error?.message ?? "")")
        if kind == "bad photo" {
            #expect(error?.message == "photo 2: the JPEG is truncated")
            #expect(error?.details.fieldViolations.map(\.field) == ["images[1].data"])
            #expect(error?.details.fieldViolations.first?.reason == .invalidFormat)
        }
        if kind == "six photos" { #expect(error?.details.fieldViolations.map(\.field) == ["images"]) }
        #expect(plantnet.requests.isEmpty)
        await server.shutdown()
    }

    @Test("Pl@ntNet's failures reach the caller as clear statuses", arguments: ["404", "401", "429", "500", "slow"])
    func upstreamFailures(kind: String) async throws {
        let (server, client, plantnet) = try start { _ in
            switch kind {
            case "404": .json(Data(#"{"statusCode": 404, "error": "Not Found", "message": "Species not found"}"#.utf8), status: 404)
            case "401": .json(Data(#"{"statusCode": 401, "message": "Invalid API key"}"#.utf8), status: 401)
            case "429": .json(Data(#"{"statusCode": 429, "message": "Too many requests"}"#.utf8), status: 429)
            case "500": .reply(status: 500)
            default: .delayed(.seconds(5), .reply(status: 200))
            }
        }
        defer { client.close() }
        let images = try photos()
        let request = Plantguide_Identification_V1_IdentifyRequest.with { $0.images = images }

        if kind == "404" {
            let answer = try await client.call(Methods.identify, request)
            #expect(answer.noPlantRecognized && answer.candidates.isEmpty && answer.lowConfidence)
        } else {
            // Only the slow case needs a short deadline; the others must not race one on a loaded machine.
            let started = ContinuousClock.now
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.call(Methods.identify, request, options: .init(timeout: .seconds(kind == "slow" ? 1 : 20)))
            }
            let expected: [String: RPCError.Code] = ["401": .failedPrecondition, "429": .resourceExhausted, "500": .unavailable, "slow": .deadlineExceeded]
            // What the fake saw and when, for a failure that happens only sometimes (a 500 once took 20 s).
            let seen = plantnet.requests.count
            #expect(error?.code == expected[kind],
                    "\(kind): \(error?.message ?? "") after \(ContinuousClock.now - started); the fake Pl@ntNet received \(seen) requests")
            if kind == "429" {
                #expect(error?.message.contains("resets at") == true)
                // The daily quota is told apart from a full queue, with the time to come back.
                #expect(error?.reasonCode == IdentificationErrorReason.plantnetDailyQuota && error?.details.info?.metadata["resets_at"] != nil)
                #expect((error?.details.retryDelay ?? .zero) > .zero && (error?.details.retryDelay ?? .zero) <= .seconds(86_400))
            }
            if kind == "500" { #expect(error?.reasonCode == RPCErrorReason.upstreamUnavailable && error?.details.info?.metadata["upstream"] == "plantnet") }
        }
        plantnet.stop()
        await server.shutdown()
    }
}
