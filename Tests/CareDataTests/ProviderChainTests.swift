@testable import CareData
import Foundation
import PlantGuideCore
import PlantGuideHTTP
import PlantGuideTestSupport
import Synchronization
import Testing

/// The chain as a deployment without Trefle runs it: Open Plantbook and Perenual (fakes replaying their recorded
/// bodies), GBIF for names, the catalog, the cache on SQLite or PostgreSQL, and what each field's source says.
@Suite("Care data chain: Open Plantbook, Perenual, GBIF, catalog, merged by field")
struct ProviderChainTests {
    let clock = TestClock()
    /// The stores the test's providers use, kept while the test runs (a fixture closes its PostgreSQL pools when it goes).
    private let stores = StoreList()

    final class StoreList: Sendable {
        private let fixtures = Mutex<[CareCacheFixture]>([])
        func keep(_ fixture: CareCacheFixture) -> CareCacheFixture {
            fixtures.withLock { $0.append(fixture) }
            return fixture
        }
    }

    func newStores(_ backend: TestBackend) async throws -> CareCacheFixture {
        stores.keep(try await CareCacheFixture(backend))
    }

    /// The bundled catalog without `species`, so that a recorded provider species is one the catalog does not
    /// know (as most of Perenual's 10,000 are). Without Alocasia amazonica unless told otherwise.
    static func catalogWithoutAlocasia(also species: [String] = []) throws -> CareCatalog {
        let left = ["Alocasia amazonica"] + species
        return try CareCatalog(parsing: try CareCatalog.bundledText().split(separator: "\n", omittingEmptySubsequences: false)
            .filter { line in !left.contains { line.hasPrefix($0 + "|") } }.joined(separator: "\n"))
    }

    func provider(_ fakes: FakeCareProviders, on stores: CareCacheFixture, catalog: CareCatalog? = nil,
                  openPlantbook: Bool = true, perenual: Bool = true, gbif: Bool = true,
                  perenualLimits: UpstreamLimits = ProviderClientTests.fastLimits,
                  openPlantbookLimits: UpstreamLimits = ProviderClientTests.fastLimits,
                  lookupBudget: Duration = TestTime.scaled(.seconds(30)),
                  http: (any HTTPClient)? = nil, openPlantbookURL: URL? = nil) async throws -> CareInfoProvider {
        var configuration = CareDataConfiguration(dataDirectory: stores.folder, trefle: TrefleConfiguration(token: nil))
        configuration.openPlantbook = OpenPlantbookConfiguration(baseURL: openPlantbookURL ?? fakes.openPlantbook.baseURL,
                                                                 clientID: openPlantbook ? "test-client" : nil, clientSecret: "test-secret")
        configuration.openPlantbook.limits = openPlantbookLimits
        configuration.lookupBudget = lookupBudget
        configuration.perenual = PerenualConfiguration(baseURL: fakes.perenual.baseURL, key: perenual ? "test-key" : nil)
        configuration.perenual.limits = perenualLimits
        configuration.gbif = GBIFConfiguration(baseURL: gbif ? fakes.gbif.baseURL : nil)
        configuration.gbif.limits = ProviderClientTests.fastLimits
        let clock = self.clock
        configuration.now = { clock.now }
        let catalog = try catalog ?? CareCatalog.bundled()
        guard let http else { return try CareInfoProvider(configuration: configuration, cache: try await stores.cache(), catalog: catalog) }
        return try CareInfoProvider(configuration: configuration, cache: try await stores.cache(), http: http, catalog: catalog)
    }

    @Test("spinach: frost-hardy from the catalog, every field's source said, no provider asked", arguments: TestBackend.allCases)
    func spinach(backend: TestBackend) async throws {
        let fakes = try FakeCareProviders()
        let chain = try await provider(fakes, on: try await newStores(backend))

        let care = try await chain.careInfo(scientificName: "Spinacia oleracea")

        #expect(care.source == .catalog)
        #expect(care.temperature.minimumCelsius == -10 && care.temperature.isFrostTolerant)
        #expect(care.origin(of: .temperature) == .catalog && care.origin(of: .watering) == .catalog)
        let sources = try #require(care.fieldSources)
        #expect(Set(sources.keys).isSuperset(of: [.light, .watering, .temperature, .fertilizer, .humidity, .soil]))
        #expect(fakes.requestCount == 0)
    }

    @Test("a tree only Open Plantbook knows: its measured ranges, the rest from its genus in the catalog, each marked",
          arguments: TestBackend.allCases)
    func tree(backend: TestBackend) async throws {
        let fakes = try FakeCareProviders()
        let stores = try await newStores(backend)
        let chain = try await provider(fakes, on: stores)

        let care = try await chain.careInfo(scientificName: "Acer buergerianum")

        #expect(care.source == .openPlantbook)
        #expect(care.temperature.minimumCelsius == 5 && care.temperature.maximumCelsius == 35)
        #expect(care.fieldSources?[.temperature] == .openPlantbook && care.fieldSources?[.humidity] == .openPlantbook)
        #expect(care.fieldSources?[.light] == .openPlantbook && care.fieldSources?[.family] == .openPlantbook)
        #expect(care.fieldSources?[.watering] == .default && care.fieldSources?[.fertilizer] == .default)
        #expect(care.notes.first?.contains("Acer palmatum") == true)
        #expect(care.notes.first?.contains("watering") == true)
        // Perenual was asked (watering is missing) and does not know it; asked again only after a day.
        let perenualRequests = fakes.perenual.requests.count
        #expect(perenualRequests == 1)

        let again = try await chain.careInfo(scientificName: "acer  BUERGERIANUM Miq.")
        #expect(again.source == .cache && again.temperature == care.temperature)
        #expect(fakes.perenual.requests.count == perenualRequests && fakes.tokensIssued == 1)
    }

    @Test("a houseplant only Perenual knows: its fields, the houseplant's defaults for the rest, named in a note",
          arguments: TestBackend.allCases)
    func houseplant(backend: TestBackend) async throws {
        let fakes = try FakeCareProviders()
        let chain = try await provider(fakes, on: try await newStores(backend), catalog: try Self.catalogWithoutAlocasia())

        let care = try await chain.careInfo(scientificName: "Alocasia amazonica")

        #expect(care.source == .perenual && care.habit == .houseplant)
        #expect(care.watering.intervalDays == 7 && care.fieldSources?[.watering] == .perenual)
        #expect(care.temperature.minimumCelsius == 1.7 && care.fieldSources?[.temperature] == .perenual)
        #expect(care.humidity == .medium && care.fieldSources?[.humidity] == .default)
        #expect(care.notes.contains { $0.hasPrefix("Not known from any source, so typical of a houseplant:") && $0.contains("humidity") })
        #expect(fakes.perenual.requests.map(\.path) == ["/api/v2/species-list", "/api/v2/species/details/710"])
    }

    @Test("a provider that fails, throttles or is off changes only the fields it gives", arguments: TestBackend.allCases)
    func providerDownChangesOnlyItsFields(backend: TestBackend) async throws {
        let catalog = try Self.catalogWithoutAlocasia()
        let healthy = try await provider(try FakeCareProviders(), on: try await newStores(backend), catalog: catalog)
        let reference = try await healthy.careInfo(scientificName: "Acer buergerianum")

        for fault in [FakeCareProviders.Fault.status(503), .status(429), .status(401)] {
            let fakes = try FakeCareProviders()
            fakes.inject(.openPlantbook, Array(repeating: fault, count: 8))
            let chain = try await provider(fakes, on: try await newStores(backend), catalog: catalog)
            let care = try await chain.careInfo(scientificName: "Acer buergerianum")
            Self.expectOnlyFieldsOf(.openPlantbook, changed: reference, care)
            #expect(care.notes.contains { $0.hasPrefix("Open Plantbook could not be asked") })
            // The others still answer.
            let alocasia = try await chain.careInfo(scientificName: "Alocasia amazonica")
            #expect(alocasia.fieldSources?[.watering] == .perenual && alocasia.watering.intervalDays == 7)
        }
        let off = try await provider(try FakeCareProviders(), on: try await newStores(backend), catalog: catalog, openPlantbook: false)
        Self.expectOnlyFieldsOf(.openPlantbook, changed: reference, try await off.careInfo(scientificName: "Acer buergerianum"))

        let alocasia = try await healthy.careInfo(scientificName: "Alocasia amazonica")
        let perenualDown = try FakeCareProviders()
        perenualDown.inject(.perenual, Array(repeating: .hang, count: 4))
        let withoutPerenual = try await provider(perenualDown, on: try await newStores(backend), catalog: catalog,
                                                 perenualLimits: ProviderClientTests.hangingLimits)
        let error = await #expect(throws: CareDataError.self) { _ = try await withoutPerenual.careInfo(scientificName: "Alocasia amazonica") }
        // Nothing else knows it: the answer says what was tried.
        #expect(error?.code == .notFound && error?.message.contains("Perenual:") == true)
        #expect(alocasia.source == .perenual)
    }

    /// Every field that neither `provider` nor a default gave in `reference` is the same, from the same source, in `care`.
    static func expectOnlyFieldsOf(_ provider: CareSource, changed reference: CareInfo, _ care: CareInfo,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        for field in CareField.allCases {
            let source = reference.fieldSources?[field]
            guard let source, source != provider, source != .default else { continue }
            #expect(care.fieldSources?[field] == source, "\(field) came from \(source), now \(String(describing: care.fieldSources?[field]))",
                    sourceLocation: sourceLocation)
            #expect(Self.value(field, care) == Self.value(field, reference), "\(field) changed", sourceLocation: sourceLocation)
        }
        for field in CareField.allCases where reference.fieldSources?[field] == provider {
            #expect(care.fieldSources?[field] != provider, sourceLocation: sourceLocation)
        }
    }

    static func value(_ field: CareField, _ care: CareInfo) -> String {
        switch field {
        case .commonNames: "\(care.commonNames)"
        case .family: care.family
        case .genus: care.genus
        case .habit: "\(String(describing: care.habit))"
        case .light: "\(care.light)"
        case .watering: "\(care.watering.frequency) \(care.watering.intervalDays) \(care.watering.amount)"
        case .temperature: "\(care.temperature)"
        case .fertilizer: "\(care.fertilizer)"
        case .humidity: "\(care.humidity)"
        case .soil: care.soil
        case .growthRate: "\(care.growthRate)"
        case .bloomingSeasons: "\(care.bloomingSeasons)"
        case .toxicity: "\(care.toxicity)"
        case .harvest: "\(String(describing: care.harvest))"
        }
    }

    @Test("an expired cache entry stands in when the provider fails, flagged stale", arguments: TestBackend.allCases)
    func staleWhenDown(backend: TestBackend) async throws {
        let fakes = try FakeCareProviders()
        let chain = try await provider(fakes, on: try await newStores(backend))
        let fresh = try await chain.careInfo(scientificName: "Acer buergerianum")
        clock.advance(days: 8)
        fakes.inject(.openPlantbook, Array(repeating: .status(500), count: 4))

        let stale = try await chain.careInfo(scientificName: "Acer buergerianum")

        #expect(stale.source == .staleCache && stale.isStale)
        #expect(stale.temperature == fresh.temperature && stale.fieldSources?[.temperature] == .openPlantbook)
        #expect(try await chain.statistics().staleServed >= 1)
    }

    @Test("names: an author and odd spacing are dropped, GBIF's accepted name and family are used and cached, a catalog common name works")
    func names() async throws {
        let fakes = try FakeCareProviders()
        let chain = try await provider(fakes, on: try await newStores(.sqlite), catalog: try Self.catalogWithoutAlocasia(),
                                       openPlantbook: false, perenual: false)

        let monstera = try await chain.careInfo(scientificName: "Swiss cheese plant")
        let sameMonstera = try await chain.careInfo(scientificName: "Monstera deliciosa Liebm.")
        #expect(monstera.scientificName == "Monstera deliciosa" && sameMonstera.scientificName == "Monstera deliciosa")
        #expect(monstera.notes.first == "“Swiss cheese plant” is Monstera deliciosa (PlantGuide's catalog).")
        #expect(fakes.gbif.requests.isEmpty)

        let error = await #expect(throws: CareDataError.self) { _ = try await chain.careInfo(scientificName: "Xyzzy plugh") }
        #expect(error?.code == .notFound)
        #expect(fakes.gbif.requests.count == 1)
        _ = try? await chain.careInfo(scientificName: "Xyzzy plugh")
        #expect(fakes.gbif.requests.count == 1)
    }

    @Test("GBIF's match gives the accepted name, family and genus, marked GBIF, and is asked once per name")
    func gbifFamily() async throws {
        let fakes = try FakeCareProviders()
        let chain = try await provider(fakes, on: try await newStores(.sqlite),
                                       catalog: try Self.catalogWithoutAlocasia(also: ["Helianthus annuus"]), openPlantbook: false, perenual: false)
        // The catalog keeps no other Helianthus, so with no provider on nothing is known but the name.
        for _ in 0..<2 {
            let error = await #expect(throws: CareDataError.self) { _ = try await chain.careInfo(scientificName: "helianthus annuus L.") }
            #expect(error?.message.contains("no care data for Helianthus annuus") == true)
        }
        #expect(fakes.gbif.requests.count == 1)

        let records: [CareSource: CareInfo] = [
            .gbif: CareInfo(scientificName: "Helianthus annuus", family: "Asteraceae", genus: "Helianthus", source: .gbif, fetchedAt: Date(),
                            fieldSources: [.family: .gbif, .genus: .gbif]),
            .catalog: try #require(try CareCatalog.bundled().care(for: "Helianthus annuus")),
        ]
        let merged = try #require(CareMerge.merge(name: "Helianthus annuus", records: records, standIn: nil, now: Date()))
        #expect(merged.fieldSources?[.family] == .gbif && merged.fieldSources?[.watering] == .catalog)
    }

    @Test("statistics and status count every provider's requests; Perenual's budget is reported")
    func status() async throws {
        let fakes = try FakeCareProviders()
        let chain = try await provider(fakes, on: try await newStores(.sqlite), catalog: try Self.catalogWithoutAlocasia())
        _ = try await chain.careInfo(scientificName: "Alocasia amazonica")

        let statuses = chain.providerStatuses()
        #expect(statuses.map(\.name) == ["Trefle", "Open Plantbook", "Perenual", "GBIF"])
        #expect(statuses[0].reachability.state == .notConfigured)
        #expect(statuses[2].requests == 2 && statuses[2].dailyBudgetLeft == 88 && statuses[2].reachability.state == .reachable)
        #expect(try await chain.statistics().upstreamCalls == fakes.requestCount)
    }
}
