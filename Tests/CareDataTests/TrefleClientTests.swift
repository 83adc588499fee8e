@testable import CareData
import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import Synchronization
import Testing

@Suite("Trefle client against a fake Trefle on 127.0.0.1")
struct TrefleClientTests {
    private func client(_ server: FakeHTTPServer, token: String? = "test-token", _ configure: (inout TrefleConfiguration) -> Void = { _ in }) -> TrefleClient {
        var configuration = TrefleConfiguration(baseURL: server.baseURL, token: token)
        configuration.timeout = TestTime.scaled(.seconds(30))  // only the hang test waits it out, with its own 500 ms
        configuration.retryBackoff = .milliseconds(10)
        configure(&configuration)
        return TrefleClient(configuration: configuration)
    }

    @Test("a species by slug: the recorded record, the token as a bearer header")
    func speciesBySlug() async throws {
        let body = try Fixtures.trefle("species-sorbus-aucuparia")
        let server = try FakeHTTPServer { _ in .json(body) }

        let species = try await client(server).species("sorbus-aucuparia")

        #expect(species.id == 183086 && species.scientificName == "Sorbus aucuparia")
        let request = try #require(server.requests.first)
        #expect(request.path == "/api/v1/species/sorbus-aucuparia")
        #expect(request.headers["authorization"] == "Bearer test-token")
    }

    @Test("a plant by id carries its main species; search sends q and page")
    func plantAndSearch() async throws {
        let plant = try Fixtures.trefle("plant-show")
        let search = try Fixtures.trefle("species-search")
        let server = try FakeHTTPServer { $0.path.hasPrefix("/api/v1/plants/") ? .json(plant) : .json(search) }
        let trefle = client(server)

        let main = try await trefle.plant("1").mainSpecies
        let page = try await trefle.searchSpecies("cocos nucifera")

        #expect(main != nil)
        #expect(page.data.isEmpty && page.meta?.total == 0)
        let searchRequest = try #require(server.requests.last)
        #expect(searchRequest.path == "/api/v1/species/search")
        #expect(searchRequest.query == ["q": "cocos nucifera", "page": "1"])
    }

    @Test("401's body uses 'messages': its text becomes the error")
    func unauthorized() async throws {
        let body = try Fixtures.trefle("error-401")
        let server = try FakeHTTPServer { _ in .json(body, status: 401) }

        let error = await #expect(throws: TrefleError.self) { _ = try await client(server).species("x") }

        #expect(error?.code == .unauthorized)
        #expect(error?.message == "Invalid access token")
        #expect(server.requests.count == 1)
    }

    @Test("404's body uses 'message'")
    func notFound() async throws {
        let body = Data(#"{"error": true, "message": "can't find record: \"nope\""}"#.utf8)
        let server = try FakeHTTPServer { _ in .json(body, status: 404) }

        let error = await #expect(throws: TrefleError.self) { _ = try await client(server).species("nope") }

        #expect(error?.code == .notFound)
        #expect(error?.message == #"can't find record: "nope""#)
    }

    @Test("429 with a short Retry-After is waited out and retried once")
    func rateLimitedThenServed() async throws {
        let body = try Fixtures.trefle("species-sorbus-aucuparia")
        let calls = Atomic<Int>(0)
        let server = try FakeHTTPServer { _ in
            calls.add(1, ordering: .relaxed).newValue == 1
                ? .json(Data(#"{"error": true, "message": "Too many requests."}"#.utf8), status: 429, headers: ["Retry-After": "0"])
                : .json(body)
        }
        let trefle = client(server)

        let species = try await trefle.species("sorbus-aucuparia")

        #expect(species.id == 183086)
        #expect(server.requests.count == 2 && trefle.rateLimitedCount == 1)
    }

    @Test("429 with a long Retry-After fails at once, saying when to retry, and blocks further requests")
    func rateLimitedLong() async throws {
        let server = try FakeHTTPServer { _ in
            .json(Data(#"{"error": true, "message": "Too many requests."}"#.utf8), status: 429, headers: ["Retry-After": "120"])
        }
        let trefle = client(server)

        let error = await #expect(throws: TrefleError.self) { _ = try await trefle.species("x") }
        let second = await #expect(throws: TrefleError.self) { _ = try await trefle.species("y") }

        #expect(error?.code == .rateLimited && error?.retryAfter == .seconds(120))
        #expect(error?.message == "Too many requests.")
        #expect(second?.code == .rateLimited)
        #expect(server.requests.count == 1, "the second request must not reach Trefle while blocked")
    }

    @Test("RateLimit-Reset (epoch seconds) is honoured when there is no Retry-After")
    func rateLimitReset() {
        let now = Date(timeIntervalSince1970: 1_000)
        #expect(TrefleClient.retryDelay(["ratelimit-reset": "1030"], now: now) == .seconds(30))
        #expect(TrefleClient.retryDelay(["retry-after": "7", "ratelimit-reset": "1030"], now: now) == .seconds(7))
        #expect(TrefleClient.retryDelay([:], now: now) == .seconds(60))
    }

    @Test("a 500 is retried once; two are UNAVAILABLE")
    func serverErrors() async throws {
        let body = try Fixtures.trefle("species-sorbus-aucuparia")
        let calls = Atomic<Int>(0)
        let flaky = try FakeHTTPServer { _ in
            calls.add(1, ordering: .relaxed).newValue == 1 ? .reply(status: 500) : .json(body)
        }
        let down = try FakeHTTPServer { _ in .reply(status: 500) }

        #expect(try await client(flaky).species("sorbus-aucuparia").id == 183086)
        let error = await #expect(throws: TrefleError.self) { _ = try await client(down).species("x") }

        #expect(flaky.requests.count == 2)
        #expect(error?.code == .unavailable && down.requests.count == 2)
    }

    @Test("a server that hangs past the time-out gives timedOut after one retry")
    func hang() async throws {
        let server = try FakeHTTPServer { _ in .hang }
        let clock = ContinuousClock()
        let started = clock.now

        let error = await #expect(throws: TrefleError.self) {
            _ = try await client(server) { $0.timeout = .milliseconds(500) }.species("x")
        }

        let elapsed = clock.now - started
        #expect(error?.code == .timedOut)
        #expect(server.requests.count == 2)
        #expect(elapsed >= .seconds(1), "two attempts must each wait out the 500 ms time-out, took \(elapsed)")
        #expect(elapsed < TestTime.scaled(.seconds(10)))
        server.stop()
    }

    @Test("the client-side limit stops requests before they reach Trefle")
    func clientSideLimit() async throws {
        let body = try Fixtures.trefle("species-sorbus-aucuparia")
        let server = try FakeHTTPServer { _ in .json(body) }
        let trefle = client(server) {
            $0.requestsPerMinute = 2
            $0.maxRateLimitWait = .milliseconds(50)
        }

        _ = try await trefle.species("a")
        _ = try await trefle.species("b")
        let error = await #expect(throws: TrefleError.self) { _ = try await trefle.species("c") }

        #expect(error?.code == .rateLimited)
        #expect(server.requests.count == 2)
    }

    @Test("without a token nothing is sent")
    func notConfigured() async throws {
        let server = try FakeHTTPServer { _ in .reply(status: 200) }
        let trefle = client(server, token: nil)

        let error = await #expect(throws: TrefleError.self) { _ = try await trefle.species("x") }

        #expect(!trefle.isConfigured && error?.code == .notConfigured)
        #expect(server.requests.isEmpty)
    }
}
