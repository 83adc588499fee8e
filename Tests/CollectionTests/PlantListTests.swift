@testable import Collection
import Foundation
import PlantGuideProtos
import PlantGuideTestSupport
import SwiftProtobuf
import Testing

@Suite("Plants: filters, sorts, pages")
struct PlantListTests {
    typealias Request = Plantguide_Collection_V1_ListPlantsRequest

    private func ids(_ fixture: CollectionFixture, _ request: Request) async throws -> [String] {
        try await fixture.plants.list(request, owner: "a").plants.map(\.id).sorted()
    }

    @Test("each filter alone and combined", arguments: TestBackend.allCases, [
        (Request.with { $0.families = ["ARACEAE"] }, ["p1", "p3", "p6"]),
        (Request.with { $0.favoritesOnly = true }, ["p1", "p4", "p7"]),
        (Request.with { $0.sources = [.plantnet] }, ["p2", "p6"]),
        (Request.with { $0.sources = [.manual, .hybrid] }, ["p3", "p4", "p8"]),
        (Request.with { $0.location = "living ROOM" }, ["p1", "p6"]),
        (Request.with { $0.query = "monstera" }, ["p1", "p3"]),
        (Request.with { $0.families = ["araceae"]; $0.location = "living room" }, ["p1", "p6"]),
        (Request.with { $0.families = ["araceae", "lamiaceae"]; $0.favoritesOnly = true }, ["p1", "p4"]),
        (Request.with { $0.query = "plant"; $0.favoritesOnly = true }, ["p1"]),
        (Request.with { $0.query = "kitchen"; $0.sources = [.manual] }, ["p4"]),
        (Request.with { $0.scientificNames = ["aloe VERA", "Ficus lyrata", "Nope nope"] }, ["p2", "p7"]),
        (Request.with { $0.scientificNames = ["Aloe vera", "Monstera deliciosa"]; $0.favoritesOnly = true }, ["p1", "p7"]),
    ])
    func filters(backend: TestBackend, example: (request: Request, expected: [String])) async throws {
        let (request, expected) = example
        let fixture = try await CollectionFixture(backend)
        try await fixture.seed()
        #expect(try await ids(fixture, request) == expected)
        #expect(try await fixture.plants.list(request, owner: "a").totalMatching == UInt64(expected.count))
    }

    @Test("a date range: added in [after, before)", arguments: TestBackend.allCases)
    func dateRange(backend: TestBackend) async throws {
        let fixture = try await CollectionFixture(backend)
        try await fixture.seed()
        let start = 1_790_000_000.0
        let request = Request.with {
            $0.addedAfter = Google_Protobuf_Timestamp(roundingTimeIntervalSince1970: start + 60, rule: .toNearestOrAwayFromZero)
            $0.addedBefore = Google_Protobuf_Timestamp(roundingTimeIntervalSince1970: start + 180, rule: .toNearestOrAwayFromZero)
        }
        #expect(try await ids(fixture, request) == ["p2", "p3"])
        var inverted = request
        inverted.addedAfter = request.addedBefore
        inverted.addedBefore = request.addedAfter
        await #expect(throws: CollectionError.self) { _ = try await fixture.plants.list(inverted, owner: "a") }
    }

    /// Filters the sort tests run under: none, a family filter, and a text query with a location.
    static let sortFilters: [Request] = [
        Request(),
        .with { $0.families = ["Araceae", "Moraceae"] },
        .with { $0.query = "plant"; $0.sources = [.onDevice, .plantnet, .manual] },
    ]

    @Test("every sort in both directions, with and without filters, paged two at a time, gives the full order without repeats",
          arguments: TestBackend.allCases, [Plantguide_Collection_V1_PlantSort.dateAdded, .dateIdentified, .name, .family])
    func sortsAndPages(backend: TestBackend, sort: Plantguide_Collection_V1_PlantSort) async throws {
        let fixture = try await CollectionFixture(backend)
        try await fixture.seed()
        for filter in Self.sortFilters {
            for descending in [false, true] { try await checkOrder(fixture, filter: filter, sort: sort, descending: descending) }
        }
    }

    private func checkOrder(
        _ fixture: CollectionFixture, filter: Request, sort: Plantguide_Collection_V1_PlantSort, descending: Bool
    ) async throws {
        var everything = filter
        everything.pageSize = 500
        let all = try await fixture.plants.list(everything, owner: "a").plants
        let expected = all.sorted { left, right in
            let (l, r) = (Self.key(left, sort), Self.key(right, sort))
            if l != r { return descending ? l > r : l < r }
            return descending ? left.id > right.id : left.id < right.id
        }.map(\.id)

        var seen: [String] = []
        var token = ""
        repeat {
            var request = filter
            request.sort = sort
            request.descending = descending
            request.pageSize = 2
            request.pageToken = token
            let page = try await fixture.plants.list(request, owner: "a")
            #expect(page.plants.count <= 2 && page.totalMatching == UInt64(all.count))
            seen += page.plants.map(\.id)
            token = page.nextPageToken
        } while !token.isEmpty

        #expect(!expected.isEmpty)
        #expect(seen == expected, "sort \(sort) descending \(descending) filter \(filter)")
    }

    @Test("a page token is refused for another sort, and when forged", arguments: TestBackend.allCases)
    func badTokens(backend: TestBackend) async throws {
        let fixture = try await CollectionFixture(backend)
        try await fixture.seed()
        let token = try await fixture.plants.list(.with { $0.pageSize = 2; $0.sort = .name }, owner: "a").nextPageToken

        for request in [Request.with { $0.pageToken = token; $0.sort = .family }, .with { $0.pageToken = "bm90IGEgdG9rZW4=" },
                        .with { $0.pageSize = 501 }] {
            let error = await #expect(throws: CollectionError.self) { _ = try await fixture.plants.list(request, owner: "a") }
            #expect(error?.code == .invalidArgument)
        }
    }

    /// The order the service promises, computed independently: strings compare case-insensitively.
    private static func key(_ plant: Plantguide_Collection_V1_Plant, _ sort: Plantguide_Collection_V1_PlantSort) -> String {
        switch sort {
        case .dateIdentified: String(format: "%020.3f", plant.hasIdentifiedAt ? Double(plant.identifiedAt.seconds) : 0)
        case .name: PlantRow.displayName(of: plant).lowercased()
        case .family: plant.family.lowercased()
        default: String(format: "%020.3f", Double(plant.addedAt.seconds) + Double(plant.addedAt.nanos) / 1e9)
        }
    }
}

@Suite("Search, suggestions, statistics")
struct PlantSearchTests {
    @Test("prefixes, common names, families and accents; names rank above notes", arguments: TestBackend.allCases, [
        ("mon", ["p1", "p3"]),
        ("swiss cheese", ["p1"]),
        ("araceae", ["p1", "p3", "p6"]),
        ("cafe", ["p5"]),
        ("MONSTERA", ["p1", "p3"]),
        ("fiddle leaf", ["p2"]),
    ])
    func search(backend: TestBackend, example: (query: String, expected: [String])) async throws {
        let (query, expected) = example
        let fixture = try await CollectionFixture(backend)
        try await fixture.seed()
        let hits = try await fixture.plants.search(query, limit: 20, owner: "a")
        #expect(hits.map(\.plant.id).sorted() == expected)
        if query == "mon" { #expect(hits.first?.plant.id == "p1", "a name match ranks above a notes match") }
    }

    @Test("matched ranges are in UTF-16 units, field by field", arguments: TestBackend.allCases)
    func ranges(backend: TestBackend) async throws {
        let fixture = try await CollectionFixture(backend)
        try await fixture.seed()

        let hit = try #require(try await fixture.plants.search("phil", limit: 5, owner: "a").first)

        let ranges = hit.matches.map { "\($0.field)@\($0.start)+\($0.length)" }
        #expect(ranges.contains("custom_name@3+4"), "after the emoji (2 units) and a space: \(ranges)")
        #expect(ranges.contains("scientific_name@0+4"))
        #expect(ranges.contains("common_names[0]@10+4"))
    }

    @Test("an empty query is INVALID_ARGUMENT", arguments: TestBackend.allCases)
    func emptyQuery(backend: TestBackend) async throws {
        let fixture = try await CollectionFixture(backend)
        await #expect(throws: CollectionError.self) { _ = try await fixture.plants.search(" ?! ", limit: 5, owner: "a") }
    }

    @Test("suggestions come from the person's own names, alphabetically", arguments: TestBackend.allCases)
    func suggestions(backend: TestBackend) async throws {
        let fixture = try await CollectionFixture(backend)
        try await fixture.seed()
        #expect(try await fixture.plants.suggestions(prefix: "mo", limit: 10, owner: "a") == ["Monstera deliciosa", "Monty"])
        #expect(try await fixture.plants.suggestions(prefix: "sw", limit: 10, owner: "a") == ["Sweet basil", "Swiss cheese plant"])
    }

    @Test("statistics: totals, favourites, families, species, sources, added this month", arguments: TestBackend.allCases)
    func statistics(backend: TestBackend) async throws {
        let fixture = try await CollectionFixture(backend)
        try await fixture.seed()
        let utc = TimeZone(identifier: "UTC")!

        let stats = try await fixture.plants.statistics(owner: "a", timeZone: utc)
        fixture.clock.advance(days: 40)
        let later = try await fixture.plants.statistics(owner: "a", timeZone: utc)

        #expect(stats.totalPlants == 8 && stats.favorites == 3 && stats.addedThisMonth == 8)
        #expect(stats.plantsPerFamily["Araceae"] == 3 && stats.plantsPerFamily["Rosaceae"] == 1)
        #expect(stats.plantsPerSource == ["on_device": 2, "plantnet": 2, "hybrid": 1, "manual": 2, "unspecified": 1])
        #expect(stats.plantsPerSpecies.count == 8 && stats.plantsPerSpecies["Aloe vera"] == 1)
        #expect(later.addedThisMonth == 0 && later.totalPlants == 8)
    }
}
