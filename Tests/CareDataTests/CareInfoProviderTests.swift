import CareData
import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import Synchronization
import Testing

/// A fake Trefle that knows Sorbus aucuparia (the recorded record) and nothing else; `setDown` makes it answer 500.
final class FakeTrefle: Sendable {
    let server: FakeHTTPServer
    private let down = Flag()

    init() throws {
        let species = try Fixtures.trefle("species-sorbus-aucuparia")
        let emptySearch = try Fixtures.trefle("species-search")
        let down = self.down
        server = try FakeHTTPServer { request in
            if down.isSet { return .reply(status: 500) }
            switch request.path {
            case "/api/v1/species/sorbus-aucuparia", "/api/v1/species/183086": return .json(species)
            case "/api/v1/species/search": return .json(emptySearch)
            default: return .json(Data(#"{"error": true, "message": "can't find record"}"#.utf8), status: 404)
            }
        }
    }

    func setDown(_ value: Bool) { down.set(value) }

    var sorbusFetches: Int { server.count(path: "/api/v1/species/sorbus-aucuparia") }

    private final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .relaxed) }
        func set(_ newValue: Bool) { value.store(newValue, ordering: .relaxed) }
    }
}

@Suite("Care info: cache, Trefle, catalog")
struct CareInfoProviderTests {
    let clock = TestClock()

    /// A provider over `stores` (a second one over the same stores is the service restarted).
    private func provider(_ trefle: FakeTrefle?, token: String? = "t", on stores: CareCacheFixture) async throws -> CareInfoProvider {
        let folder = stores.folder
        var trefleConfiguration = TrefleConfiguration(baseURL: trefle?.server.baseURL ?? URL(string: "http://127.0.0.1:9")!, token: token)
        trefleConfiguration.retryBackoff = .milliseconds(5)
        trefleConfiguration.timeout = TestTime.scaled(.seconds(30))  // no fake here hangs: an answer is never timed out
        var configuration = CareDataConfiguration(dataDirectory: folder, trefle: trefleConfiguration)
        configuration.lookupBudget = TestTime.scaled(.seconds(30))
        let clock = self.clock
        configuration.now = { clock.now }
        return try CareInfoProvider(configuration: configuration, cache: try await stores.cache(), catalog: try CareCatalog.bundled())
    }

    @Test("200 concurrent requests for an uncached species make exactly one upstream call", arguments: TestBackend.allCases)
    func singleFlight(backend: TestBackend) async throws {
        let stores = try await CareCacheFixture(backend)
        let trefle = try FakeTrefle()
        let provider = try await provider(trefle, on: stores)

        let sources = try await withThrowingTaskGroup(of: CareSource.self) { group in
            for _ in 0..<200 {
                group.addTask { try await provider.careInfo(scientificName: "Sorbus aucuparia").source }
            }
            return try await group.reduce(into: [CareSource]()) { $0.append($1) }
        }

        #expect(sources.count == 200)
        #expect(trefle.sorbusFetches == 1)
        #expect(sources.allSatisfy { $0 == .trefle || $0 == .cache })
    }

    @Test("within 7 days the cache answers, also after a restart; at 8 days one refresh", arguments: TestBackend.allCases)
    func freshnessAndRestart(backend: TestBackend) async throws {
        let stores = try await CareCacheFixture(backend)
        let trefle = try FakeTrefle()
        let first = try await provider(trefle, on: stores)
        #expect(try await first.careInfo(scientificName: "Sorbus aucuparia").source == .trefle)

        clock.advance(days: 6)
        #expect(try await first.careInfo(scientificName: "sorbus AUCUPARIA L.").source == .cache)
        let restarted = try await provider(trefle, on: stores)  // a new process over the same database
        #expect(try await restarted.careInfo(scientificName: "Sorbus aucuparia").source == .cache)
        #expect(trefle.sorbusFetches == 1)

        clock.advance(days: 2)
        let refreshed = try await restarted.careInfo(scientificName: "Sorbus aucuparia")
        #expect(refreshed.source == .trefle && refreshed.fetchedAt == clock.now)
        #expect(trefle.sorbusFetches == 2)
    }

    @Test("Trefle down: stale cache (flagged), then the catalog, then NOT_FOUND saying what was tried", arguments: TestBackend.allCases)
    func trefleDown(backend: TestBackend) async throws {
        let stores = try await CareCacheFixture(backend)
        let trefle = try FakeTrefle()
        let provider = try await provider(trefle, on: stores)
        _ = try await provider.careInfo(scientificName: "Sorbus aucuparia")
        clock.advance(days: 8)
        trefle.setDown(true)

        let stale = try await provider.careInfo(scientificName: "Sorbus aucuparia")
        let catalog = try await provider.careInfo(scientificName: "Ficus lyrata")
        let error = await #expect(throws: CareDataError.self) { _ = try await provider.careInfo(scientificName: "Xyzzy plugh") }

        #expect(stale.source == .staleCache && stale.isStale && stale.trefleID == 183086)
        #expect(catalog.source == .catalog && catalog.commonNames.first == "Fiddle-leaf fig")
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("Trefle answered 500") == true)
        #expect(error?.message.contains("catalog: neither Xyzzy plugh nor the genus Xyzzy") == true)
        let stats = try await provider.statistics()
        #expect(stats.staleServed == 1)
    }

    @Test("a species Trefle does not know is cached as not found, and the genus stands in", arguments: TestBackend.allCases)
    func notFoundIsCached(backend: TestBackend) async throws {
        let stores = try await CareCacheFixture(backend)
        let trefle = try FakeTrefle()
        let provider = try await provider(trefle, on: stores)

        let first = try await provider.careInfo(scientificName: "Monstera obliqua")
        let second = try await provider.careInfo(scientificName: "Monstera obliqua")

        #expect(first.source == .default && first.scientificName == "Monstera obliqua")
        #expect(first.notes.first?.contains("Monstera deliciosa") == true)
        #expect(second.source == .default)
        #expect(trefle.server.count(path: "/api/v1/species/monstera-obliqua") == 1)
        #expect(try await provider.statistics().notFoundEntries == 1)
    }

    @Test("without a token nothing is sent: catalog answers", arguments: TestBackend.allCases)
    func noToken(backend: TestBackend) async throws {
        let stores = try await CareCacheFixture(backend)
        let trefle = try FakeTrefle()
        let provider = try await provider(trefle, token: nil, on: stores)

        let care = try await provider.careInfo(scientificName: "Ocimum basilicum")

        #expect(care.source == .catalog && care.family == "Lamiaceae")
        #expect(trefle.server.requests.isEmpty)
    }

    @Test("by Trefle id; invalidation makes the next request fetch again", arguments: TestBackend.allCases)
    func byIDAndInvalidate(backend: TestBackend) async throws {
        let stores = try await CareCacheFixture(backend)
        let trefle = try FakeTrefle()
        let provider = try await provider(trefle, on: stores)

        #expect(try await provider.careInfo(trefleID: 183086).scientificName == "Sorbus aucuparia")
        #expect(try await provider.careInfo(scientificName: "Sorbus aucuparia").source == .cache)
        #expect(try await provider.invalidate(scientificName: "Sorbus aucuparia", trefleID: nil))
        #expect(try await provider.careInfo(scientificName: "Sorbus aucuparia").source == .trefle)
        #expect(try await provider.invalidate(scientificName: "Rosa canina", trefleID: nil) == false)
    }

    @Test("a name that is no name is INVALID_ARGUMENT", arguments: ["", "   ", "1234"])
    func invalidName(name: String) async throws {
        let provider = try await provider(nil, token: nil, on: CareCacheFixture(.sqlite))
        let error = await #expect(throws: CareDataError.self) { _ = try await provider.careInfo(scientificName: name) }
        #expect(error?.code == .invalidArgument)
    }
}
