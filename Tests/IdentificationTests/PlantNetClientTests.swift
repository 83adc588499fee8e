import Foundation
@testable import Identification
import PlantGuideTestSupport
import Synchronization
import Testing

@Suite("Pl@ntNet client against a fake Pl@ntNet on 127.0.0.1")
struct PlantNetClientTests {
    /// A client of `server` whose time-out no answer of a fake meets even on a busy machine (with half a second, a
    /// test process busy elsewhere timed out a fake's answer), unless `timeout` is given for a fake that hangs.
    private func client(_ server: FakeHTTPServer, key: String? = "test-key", timeout: Duration = TestTime.scaled(.seconds(30))) -> PlantNetClient {
        var configuration = PlantNetConfiguration(baseURL: server.baseURL, apiKey: key)
        configuration.timeout = timeout
        return PlantNetClient(configuration: configuration)
    }

    private let photos = [
        PlantNetImage(data: Data(repeating: 0xAB, count: 3_000), organ: .flower),
        PlantNetImage(data: Data(repeating: 0xCD, count: 2_000), organ: .leaf),
    ]

    @Test("two photos go out as multipart with their organs in order; the recorded answer decodes")
    func identify() async throws {
        let body = try Fixtures.plantnet("identify-hibiscus")
        let server = try FakeHTTPServer { _ in .json(body) }
        let plantnet = client(server)

        let result = try await plantnet.identify(photos, language: "en", maxResults: 3)

        let request = try #require(server.requests.first)
        #expect(request.method == "POST" && request.path == "/v2/identify/all")
        #expect(request.query["api-key"] == "test-key" && request.query["lang"] == "en" && request.query["nb-results"] == "3")
        let text = String(decoding: request.body, as: UTF8.self)
        #expect(text.components(separatedBy: "name=\"images\"").count == 3)
        // "\r\n" is one Character in Swift: split on the string.
        let organs = text.components(separatedBy: "name=\"organs\"\r\n\r\n").dropFirst().map { $0.components(separatedBy: "\r\n")[0] }
        #expect(organs == ["flower", "leaf"])
        #expect(request.headers["content-type"]?.hasPrefix("multipart/form-data; boundary=") == true)
        let best = try #require(result.candidates.first)
        #expect(best.scientificName == "Hibiscus rosa-sinensis" && best.family == "Malvaceae" && best.genus == "Hibiscus")
        #expect(best.score > 0.99 && best.commonNames.first == "Chinese hibiscus")
        #expect(result.bestMatch == "Hibiscus rosa-sinensis" && !result.noPlantRecognized)
        #expect(result.remainingRequests == 1228 && plantnet.quotaSnapshot.remaining == 1228 && plantnet.quotaSnapshot.used == 1)
    }

    @Test("the older response (gbif id as text) and the newer (numeric ids, powo, bestMatch, version) both decode")
    func responseGenerations() async throws {
        let legacy = try Fixtures.plantnet("identify-legacy-camellia")
        let newer = Data("""
            {"bestMatch": "Monstera deliciosa Liebm.", "version": "2025-01-17 (7.3)", "remainingIdentificationRequests": 12,
             "results": [{"score": 0.91, "species": {"scientificNameWithoutAuthor": "Monstera deliciosa",
               "genus": {"scientificNameWithoutAuthor": "Monstera"}, "family": {"scientificNameWithoutAuthor": "Araceae"},
               "commonNames": ["Swiss cheese plant"]}, "gbif": {"id": 2868241}, "powo": {"id": "87423-1"}}]}
            """.utf8)
        let server = try FakeHTTPServer { request in .json(request.query["lang"] == "fr" ? newer : legacy) }

        let old = try await client(server).identify(Array(photos.prefix(1)))
        let new = try await client(server).identify(Array(photos.prefix(1)), language: "fr")

        #expect(old.candidates.first?.scientificName == "Camellia japonica" && old.candidates.first?.gbifID == "3189636")
        #expect(new.candidates.first?.gbifID == "2868241" && new.candidates.first?.powoID == "87423-1")
        #expect(new.bestMatch == "Monstera deliciosa Liebm." && new.version == "2025-01-17 (7.3)")
    }

    @Test("404 'Species not found' is an answer: no plant recognised")
    func noPlant() async throws {
        let server = try FakeHTTPServer { _ in
            .json(Data(#"{"statusCode": 404, "error": "Not Found", "message": "Species not found"}"#.utf8), status: 404)
        }
        let result = try await client(server).identify(photos)
        #expect(result.noPlantRecognized && result.candidates.isEmpty)
    }

    @Test("failures become clear errors", arguments: ["401", "429", "500", "hang", "no key", "six photos"])
    func failures(kind: String) async throws {
        let calls = Atomic<Int>(0)
        let server = try FakeHTTPServer { _ in
            calls.add(1, ordering: .relaxed)
            return switch kind {
            case "401": .json(Data(#"{"statusCode": 401, "error": "Unauthorized", "message": "Invalid API key"}"#.utf8), status: 401)
            case "429": .json(Data(#"{"statusCode": 429, "error": "Too Many Requests", "message": "Too many requests"}"#.utf8), status: 429)
            case "500": .reply(status: 500)
            default: .hang
            }
        }
        let plantnet = client(server, key: kind == "no key" ? nil : "k", timeout: kind == "hang" ? .milliseconds(500) : TestTime.scaled(.seconds(30)))
        let images = kind == "six photos" ? Array(repeating: photos[0], count: 6) : photos

        let error = await #expect(throws: PlantNetError.self) { _ = try await plantnet.identify(images) }

        let expected: [String: PlantNetError.Code] = [
            "401": .unauthorized, "429": .quotaExceeded, "500": .unavailable, "hang": .timedOut, "no key": .notConfigured,
            "six photos": .invalidRequest,
        ]
        #expect(error?.code == expected[kind])
        switch kind {
        case "401": #expect(error?.message == "Invalid API key")
        case "429":
            #expect(error?.resetsAt == PlantNetClient.nextMidnightUTC(after: Date()))
            #expect(plantnet.quotaSnapshot.remaining == 0)
        case "500": #expect(calls.load(ordering: .relaxed) == 2, "retried once")
        case "no key", "six photos": #expect(calls.load(ordering: .relaxed) == 0, "nothing sent")
        default: break
        }
        server.stop()
    }
}
