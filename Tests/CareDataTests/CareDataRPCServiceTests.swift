import CareData
import Foundation
import Logging
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("plantguide-caredata over RPC", .cleansUp)
struct CareDataRPCServiceTests {
    typealias Methods = Plantguide_Caredata_V1_CareDataService

    /// A care-data server over a fresh database, with a fake Trefle whose search answers the recorded list page.
    private func start(trefleDown: Bool = false) throws -> (server: RPCServer, client: RPCClient, trefle: FakeHTTPServer) {
        let species = try Fixtures.trefle("species-sorbus-aucuparia")
        let list = try Fixtures.trefle("plants-list")
        let trefle = try FakeHTTPServer { request in
            if trefleDown { return .reply(status: 503) }
            switch request.path {
            case "/api/v1/species/sorbus-aucuparia": return .json(species)
            case "/api/v1/species/search": return .json(list)
            default: return .json(Data(#"{"error": true, "message": "can't find record"}"#.utf8), status: 404)
            }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caredata-rpc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var trefleConfiguration = TrefleConfiguration(baseURL: trefle.baseURL, token: "t")
        trefleConfiguration.retryBackoff = .milliseconds(5)
        var logger = Logger(label: "caredata-test")
        logger.logLevel = .warning
        var configuration = CareDataConfiguration(dataDirectory: folder, trefle: trefleConfiguration)
        configuration.lookupBudget = TestTime.scaled(.seconds(30))
        let service = try CareDataRPCService(configuration: configuration, logger: logger)
        let server = RPCServer(configuration: .init(bindEndpoint: "tcp://127.0.0.1:0"), services: [service], logger: logger)
        TestResources.track(server)
        try server.startInProcess()  // care data, not sockets, is the subject
        let client = RPCClient(inProcess: server, configuration: .forTests)
        return (server, client, trefle)
    }

    @Test("GetCareInfo: from Trefle, then from the cache, with every field on the wire")
    func getCareInfo() async throws {
        let (server, client, _) = try start()
        defer { client.close() }
        let request = Plantguide_Caredata_V1_GetCareInfoRequest.with { $0.scientificName = "Sorbus aucuparia" }

        let first = try await client.call(Methods.getCareInfo, request).careInfo
        let second = try await client.call(Methods.getCareInfo, request).careInfo

        #expect(first.source == .trefle && second.source == .cache)
        #expect(first.trefleID == 183086 && first.family == "Rosaceae")
        #expect(first.light.level == .fullSun && first.light.hoursPerDay == 8)
        #expect(first.watering.frequency == .twiceWeekly && first.watering.intervalDays == 3)
        #expect(first.temperature.minCelsius == -36 && first.temperature.frostTolerant)
        #expect(first.toxicity == .none && first.growthRate == .fast)
        #expect(first.fetchedAt.seconds > 0 && !first.stale)
        let health = try await client.call(
            Plantguide_Health_V1_Health.check, .with { $0.service = Methods.serviceName })
        #expect(health.status == .serving)
        await server.shutdown()
    }

    @Test("GetStatus: Trefle's reachability is UNKNOWN until a request, then what the last request found")
    func status() async throws {
        let (server, client, _) = try start()
        defer { client.close() }
        let (downServer, downClient, _) = try start(trefleDown: true)
        defer { downClient.close() }
        let name = Plantguide_Caredata_V1_GetCareInfoRequest.with { $0.scientificName = "Sorbus aucuparia" }

        let before = try await client.call(Methods.getStatus, .init())
        _ = try await client.call(Methods.getCareInfo, name)
        let after = try await client.call(Methods.getStatus, .init())
        _ = try? await downClient.call(Methods.getCareInfo, name)
        let down = try await downClient.call(Methods.getStatus, .init())

        #expect(before.trefle.reachability == .unknown && !before.trefle.hasLastSuccessAt && before.trefle.requests == 0)
        #expect(before.catalogSpecies > 0)
        #expect(after.trefle.reachability == .reachable && after.trefle.hasLastSuccessAt && !after.trefle.hasLastFailureAt)
        #expect(after.trefle.requests == 1 && after.cache.entries == 1 && after.trefle.lastError.isEmpty)
        #expect(down.trefle.reachability == .unreachable && down.trefle.hasLastFailureAt && !down.trefle.hasLastSuccessAt)
        #expect(down.trefle.lastError == "Trefle answered 503" && down.trefle.requests == 2, "one retry")
        await server.shutdown()
        await downServer.shutdown()
    }

    @Test("errors: no key is INVALID_ARGUMENT; an unknown species is NOT_FOUND saying what was tried")
    func errors() async throws {
        let (server, client, _) = try start()
        defer { client.close() }

        let missing = await #expect(throws: RPCError.self) { _ = try await client.call(Methods.getCareInfo, .init()) }
        let unknown = await #expect(throws: RPCError.self) {
            _ = try await client.call(Methods.getCareInfo, .with { $0.scientificName = "Xyzzy plugh" })
        }

        #expect(missing?.code == .invalidArgument)
        #expect(missing?.details.fieldViolations.map(\.field) == ["key"])
        #expect(unknown?.code == .notFound)
        #expect(unknown?.message.contains("Trefle: no such species") == true)
        await server.shutdown()
    }

    @Test("with allow_generic an unknown species gets a generic profile marked DEFAULT, with a note saying so")
    func genericProfile() async throws {
        let (server, client, _) = try start()
        defer { client.close() }
        let generic = try await client.call(Methods.getCareInfo, .with { $0.scientificName = "xyzzy  Plugh"; $0.allowGeneric = true }).careInfo
        #expect(generic.source == .default && generic.scientificName == "Xyzzy plugh")
        #expect(generic.notes.first?.hasPrefix("Generic houseplant care") == true && generic.notes.first?.contains("Xyzzy plugh") == true)
        #expect(generic.watering.frequency == .weekly && generic.genus.isEmpty)
        // A known species is unaffected by the flag.
        let known = try await client.call(Methods.getCareInfo, .with { $0.scientificName = "Sorbus aucuparia"; $0.allowGeneric = true }).careInfo
        #expect(known.source == .trefle)
        await server.shutdown()
    }

    @Test("SearchSpecies merges the catalog's matches and Trefle's without repeats, page by page")
    func search() async throws {
        let (server, client, _) = try start()
        defer { client.close() }
        let catalogMatches = try CareCatalog.bundled().search("ash").count

        var names: [String] = []
        var token = ""
        var pages = 0
        repeat {
            let page = try await client.call(Methods.searchSpecies, .with {
                $0.query = "ash"
                $0.pageSize = 2
                $0.pageToken = token
            })
            #expect(page.species.count <= 2 && !page.upstreamFailed)
            names += page.species.map(\.scientificName)
            token = page.nextPageToken
            pages += 1
        } while !token.isEmpty && pages < 50

        #expect(names.count == catalogMatches + 5, "Trefle's six results minus Sorbus aucuparia, which the catalog has")
        #expect(Set(names).count == names.count)
        #expect(names.filter { $0 == "Sorbus aucuparia" }.count == 1)
        #expect(names.contains("Abies alba"))
        await server.shutdown()
    }

    @Test("SearchSpecies refuses an empty query, a page size over 100 and a forged token; Trefle down is not an error")
    func searchEdges() async throws {
        let (server, client, _) = try start(trefleDown: true)
        defer { client.close() }

        for request in [
            Plantguide_Caredata_V1_SearchSpeciesRequest.with { $0.query = " " },
            .with { $0.query = "rose"; $0.pageSize = 101 },
            .with { $0.query = "rose"; $0.pageToken = "page-2" },
        ] {
            let error = await #expect(throws: RPCError.self) { _ = try await client.call(Methods.searchSpecies, request) }
            #expect(error?.code == .invalidArgument)
        }
        let page = try await client.call(Methods.searchSpecies, .with { $0.query = "rose" })
        #expect(page.upstreamFailed && page.species.contains { $0.scientificName == "Rosa hybrids" })
        await server.shutdown()
    }

    @Test("GetCacheStats counts hits and upstream calls; InvalidateCacheEntry empties an entry")
    func statsAndInvalidate() async throws {
        let (server, client, trefle) = try start()
        defer { client.close() }
        let request = Plantguide_Caredata_V1_GetCareInfoRequest.with { $0.scientificName = "Sorbus aucuparia" }
        _ = try await client.call(Methods.getCareInfo, request)
        _ = try await client.call(Methods.getCareInfo, request)

        let stats = try await client.call(Methods.getCacheStats, .init())
        let removed = try await client.call(Methods.invalidateCacheEntry, .with { $0.scientificName = "Sorbus aucuparia" })
        let again = try await client.call(Methods.getCareInfo, request)

        #expect(stats.entries == 1 && stats.freshEntries == 1 && stats.hits == 1 && stats.misses == 1)
        #expect(stats.upstreamCalls == 1)
        #expect(removed.removed && again.careInfo.source == .trefle)
        #expect(trefle.count(path: "/api/v1/species/sorbus-aucuparia") == 2)
        await server.shutdown()
    }
}
