import Foundation
import PlantGuideHTTP
import PlantGuideTestSupport
import Testing

/// A deployment without Trefle: care data from Open Plantbook and Perenual (fakes replaying their recorded
/// bodies) and the catalog, through the gateway's JSON and the `plantguide care` command, on both backends.
@Suite("Care data providers through the gateway and the CLI", .serialized, .wholeStack, .cleansUp)
struct CareProvidersStackTests {
    @Test("with only Open Plantbook and Perenual: a crop, a houseplant, a succulent and a tree, every field's source shown",
          arguments: TestBackend.allCases)
    func providersThroughTheGateway(backend: TestBackend) async throws {
        let fakes = try FakeCareProviders()
        let stack = try await GatewayJourneyTests.Stack(backend, serviceExtra: [
            "PLANTGUIDE_OPENPLANTBOOK_URL": fakes.openPlantbook.baseURL.absoluteString, "PLANTGUIDE_OPENPLANTBOOK_CLIENT_ID": "test-client",
            "PLANTGUIDE_OPENPLANTBOOK_CLIENT_SECRET": "test-secret",
            "PLANTGUIDE_PERENUAL_URL": fakes.perenual.baseURL.absoluteString, "PLANTGUIDE_PERENUAL_KEY": "test-key",
            "PLANTGUIDE_GBIF_URL": fakes.gbif.baseURL.absoluteString,
        ])
        let token = try await stack.token(for: "ana")
        try await stack.waitForHTTP()
        let http = CurlHTTPClient()
        func care(_ name: String) async throws -> [String: Any] {
            let path = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name
            let response = try await http.send(HTTPRequest(url: URL(string: stack.httpBase.absoluteString + "/v1/care/" + path)!,
                                                           headers: ["Authorization": "Bearer \(token)"]), timeout: TestTime.scaled(.seconds(20)))
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            let body = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            return body?["careInfo"] as? [String: Any] ?? [:]
        }
        func minimum(_ care: [String: Any]) -> Double? { ((care["temperature"] as? [String: Any])?["minCelsius"] as? NSNumber)?.doubleValue }
        func sources(_ care: [String: Any]) -> [String: String] { care["fieldSources"] as? [String: String] ?? [:] }

        let spinach = try await care("Spinacia oleracea")
        #expect(minimum(spinach) == -10 && (spinach["temperature"] as? [String: Any])?["frostTolerant"] as? Bool == true)
        #expect(sources(spinach)["temperature"] == "CARE_SOURCE_CATALOG" && sources(spinach)["watering"] == "CARE_SOURCE_CATALOG")
        let houseplant = try await care("Alocasia amazonica")
        #expect(minimum(houseplant) == 18 && sources(houseplant)["temperature"] == "CARE_SOURCE_CATALOG")
        let succulent = try await care("Aloe vera")
        #expect(succulent["habit"] as? String == "PLANT_HABIT_SUCCULENT" && minimum(succulent) == 7)
        #expect(fakes.requestCount == 0, "catalog species cost no provider request")

        let tree = try await care("Acer buergerianum")
        #expect(minimum(tree) == 5 && sources(tree)["temperature"] == "CARE_SOURCE_OPEN_PLANTBOOK")
        #expect(sources(tree)["watering"] == "CARE_SOURCE_DEFAULT" && sources(tree)["family"] == "CARE_SOURCE_OPEN_PLANTBOOK")
        #expect((tree["notes"] as? [String])?.first?.contains("Acer palmatum") == true)
        #expect(fakes.tokensIssued == 1 && fakes.perenual.requests.count == 1)

        let cli = try await ChildProcess.run(BuildProducts.url(of: "plantguide"), ["care", "Acer buergerianum"], environment: [
            "PLANTGUIDE_CONFIG": "/nonexistent/config.json", "PLANTGUIDE_URL": stack.httpBase.absoluteString, "PLANTGUIDE_TOKEN": token,
        ], mergingStandardError: true)
        #expect(cli.status == 0, "\(cli.output)")
        #expect(cli.output.contains("Open Plantbook") && cli.output.contains("default") && cli.output.contains("5 to 35 °C"), "\(cli.output)")
        #expect(!cli.output.contains("CARE_SOURCE_"), "\(cli.output)")
        await stack.stop()
        fakes.stop()
    }

    @Test("Open Plantbook over https, trusted through PLANTGUIDE_CA_FILE")
    func providerOverHTTPS() async throws {
        let fakes = try FakeCareProviders()
        let authority = try await TestCertificateAuthority.make()
        let front = try await TLSFront(for: fakes.openPlantbook.baseURL, authority: authority)
        defer { front.stop() }
        let stack = try await GatewayJourneyTests.Stack(.sqlite, serviceExtra: [
            "PLANTGUIDE_OPENPLANTBOOK_URL": front.url().absoluteString, "PLANTGUIDE_OPENPLANTBOOK_CLIENT_ID": "test-client",
            "PLANTGUIDE_OPENPLANTBOOK_CLIENT_SECRET": "test-secret", "PLANTGUIDE_CA_FILE": authority.caFile,
            "PLANTGUIDE_PERENUAL_URL": fakes.perenual.baseURL.absoluteString, "PLANTGUIDE_PERENUAL_KEY": "test-key",
            "PLANTGUIDE_GBIF_URL": "off",
        ])
        let token = try await stack.token(for: "ana")
        try await stack.waitForHTTP()
        let tree = try await Self.care("Acer buergerianum", from: stack, token: token)
        #expect((tree["fieldSources"] as? [String: String])?["temperature"] == "CARE_SOURCE_OPEN_PLANTBOOK", "\(tree)")
        await stack.stop()
        fakes.stop()
    }

    /// `GET /v1/care/{name}`'s care info as JSON.
    static func care(_ name: String, from stack: GatewayJourneyTests.Stack, token: String) async throws -> [String: Any] {
        let path = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name
        let response = try await CurlHTTPClient().send(HTTPRequest(url: URL(string: stack.httpBase.absoluteString + "/v1/care/" + path)!,
                                                                   headers: ["Authorization": "Bearer \(token)"]),
                                                       timeout: TestTime.scaled(.seconds(20)))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        return (try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["careInfo"] as? [String: Any] ?? [:]
    }

    @Test("a --ca-file that cannot be read or holds no certificate stops the service at start, saying so")
    func badCAFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let notPEM = folder.appendingPathComponent("not.pem")
        try "hello".write(to: notPEM, atomically: true, encoding: .utf8)
        for (service, file, words) in [("plantguide-caredata", "/nonexistent/ca.pem", "cannot read the CA file"),
                                       ("plantguide-scheduling", notPEM.path, "holds no PEM certificate"),
                                       ("plantguide-identification", notPEM.path, "holds no PEM certificate")] {
            // Under `timeout`: a service that took the file would serve until killed.
            let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/timeout"), [
                "20", BuildProducts.url(of: service).path, "--ca-file", file, "--data", folder.path, "--bind", "tcp://127.0.0.1:0",
            ], mergingStandardError: true)
            #expect(outcome.status != 0 && outcome.output.contains(words), "\(service): \(outcome.output)")
        }
    }
}
