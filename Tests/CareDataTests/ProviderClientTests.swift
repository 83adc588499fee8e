@testable import CareData
import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import Testing

/// Open Plantbook's, Perenual's and GBIF's clients against fakes replaying their recorded bodies, and how each
/// meets a provider's failures.
@Suite("Open Plantbook, Perenual and GBIF clients against fakes on 127.0.0.1")
struct ProviderClientTests {
    /// No waiting between retries and no rate limit, and a time-out no answer of a fake meets even on a busy
    /// machine: with half a second, a test process busy elsewhere timed out an answer and asked again.
    static let fastLimits: UpstreamLimits = {
        var limits = UpstreamLimits(timeout: TestTime.scaled(.seconds(30)), requestsPerMinute: 6_000, retryBackoff: .milliseconds(10),
                                    maxRateLimitWait: .seconds(1))
        limits.breakerThreshold = 1_000
        return limits
    }()

    /// ``fastLimits`` with a short time-out, for a provider that is made to hang: waited for, it never answers.
    static let hangingLimits: UpstreamLimits = {
        var limits = fastLimits
        limits.timeout = .milliseconds(500)
        return limits
    }()

    static func openPlantbook(_ fakes: FakeCareProviders, secret: String = "test-secret", limits: UpstreamLimits = fastLimits)
        -> OpenPlantbookClient
    {
        var configuration = OpenPlantbookConfiguration(baseURL: fakes.openPlantbook.baseURL, clientID: "test-client", clientSecret: secret)
        configuration.limits = limits
        return OpenPlantbookClient(configuration: configuration)
    }

    static func perenual(_ fakes: FakeCareProviders, budget: Int = 90, clock: TestClock = TestClock(), limits: UpstreamLimits = fastLimits)
        -> PerenualClient
    {
        var configuration = PerenualConfiguration(baseURL: fakes.perenual.baseURL, key: "test-key")
        configuration.limits = limits
        configuration.dailyBudget = budget
        configuration.now = { clock.now }
        return PerenualClient(configuration: configuration)
    }

    @Test("Open Plantbook: client credentials for a bearer token, kept for the next requests; the recorded detail maps")
    func openPlantbookToken() async throws {
        let fakes = try FakeCareProviders()
        let client = Self.openPlantbook(fakes)

        let first = try await client.detail(pid: "acer buergerianum")
        _ = try await client.detail(pid: "acer buergerianum", language: "ru")

        #expect(fakes.tokensIssued == 1)
        let token = try #require(fakes.openPlantbook.requests.first)
        #expect(token.method == "POST" && token.path == "/api/v1/token/")
        #expect(token.headers["content-type"] == "application/x-www-form-urlencoded")
        #expect(fakes.openPlantbook.requests.dropFirst().allSatisfy { $0.headers["authorization"] == "Bearer token-1" })
        #expect(fakes.openPlantbook.requests.last?.query == ["lang": "ru", "include": "care"])
        let care = OpenPlantbookMapping.careInfo(from: first.plant, fetchedAt: Date(timeIntervalSince1970: 0))
        #expect(care.scientificName == "Acer buergerianum" && care.family == "Aceraceae" && care.genus == "Acer")
        #expect(care.temperature.minimumCelsius == 5 && care.temperature.maximumCelsius == 35)
        #expect(care.humidity == .medium && care.light.level == .fullSun)
        #expect(care.commonNames == ["Acer lingii"])
        #expect(care.localizedCommonNames?.contains(LocalizedName(name: "Клён трёхраздельный", language: "ru")) == true)
        #expect(care.fieldSources == [.temperature: .openPlantbook, .humidity: .openPlantbook, .light: .openPlantbook,
                                      .family: .openPlantbook, .genus: .openPlantbook, .commonNames: .openPlantbook])
        #expect(care.notes.contains("Soil moisture 15–60 % (Open Plantbook, as a sensor reads it)."))
    }

    @Test("Open Plantbook: a token that expires mid-use is replaced once and the request goes through")
    func openPlantbookExpiredToken() async throws {
        let fakes = try FakeCareProviders()
        let client = Self.openPlantbook(fakes)
        _ = try await client.detail(pid: "acer buergerianum")

        fakes.expireTokens()
        let again = try await client.detail(pid: "acer buergerianum")

        #expect(again.plant.pid == "acer buergerianum")
        #expect(fakes.tokensIssued == 2)
        #expect(fakes.openPlantbook.requests.last?.headers["authorization"] == "Bearer token-2")
    }

    @Test("Open Plantbook: refused credentials are UNAUTHORIZED, a pid it lacks NOT_FOUND")
    func openPlantbookRefusals() async throws {
        let fakes = try FakeCareProviders()
        let refused = await #expect(throws: ProviderError.self) { _ = try await Self.openPlantbook(fakes, secret: "wrong").detail(pid: "acer buergerianum") }
        #expect(refused?.code == .unauthorized && refused?.provider == "Open Plantbook")

        let missing = await #expect(throws: ProviderError.self) { _ = try await Self.openPlantbook(fakes).detail(pid: "xyzzy plugh") }
        #expect(missing?.code == .notFound)
    }

    /// One request to `provider` through its client (after Open Plantbook's token is in hand, so that the fault
    /// meets the data request), and its requester.
    static func ask(_ provider: FakeCareProviders.Provider, _ fakes: FakeCareProviders, limits: UpstreamLimits = fastLimits)
        async throws -> (UpstreamRequester, () async throws -> Void)
    {
        switch provider {
        case .openPlantbook:
            let client = openPlantbook(fakes, limits: limits)
            _ = try await client.detail(pid: "acer buergerianum")
            return (client.requester, { _ = try await client.detail(pid: "acer buergerianum") })
        case .perenual:
            let client = perenual(fakes, limits: limits)
            return (client.requester, { _ = try await client.details(id: 710) })
        case .gbif:
            var configuration = GBIFConfiguration(baseURL: fakes.gbif.baseURL)
            configuration.limits = limits
            let client = GBIFClient(configuration: configuration)
            return (client.requester, { _ = try await client.match("Helianthus annuus") })
        }
    }

    @Test("each failure of each provider becomes its error: 401, 403, 404, 429 without Retry-After, 5xx twice, a hang, malformed JSON",
          arguments: [FakeCareProviders.Provider.openPlantbook, .perenual, .gbif], [
              (FakeCareProviders.Fault.status(401), ProviderError.Code.unauthorized, 1),
              (.status(403), .unauthorized, 1),
              (.status(404), .notFound, 1),
              (.status(429), .rateLimited, 1),
              (.status(503), .unavailable, 2),
              (.hang, .timedOut, 2),
              (.malformed, .badResponse, 1),
          ])
    func failures(provider: FakeCareProviders.Provider, failure: (fault: FakeCareProviders.Fault, code: ProviderError.Code, requests: Int)) async throws {
        let fakes = try FakeCareProviders()
        let hangs = if case .hang = failure.fault { true } else { false }
        let (requester, request) = try await Self.ask(provider, fakes, limits: hangs ? Self.hangingLimits : Self.fastLimits)
        let server = provider == .openPlantbook ? fakes.openPlantbook : provider == .perenual ? fakes.perenual : fakes.gbif
        let before = server.requests.count
        fakes.inject(provider, [failure.fault, failure.fault])

        let error = await #expect(throws: ProviderError.self) { try await request() }

        #expect(error?.code == failure.code)
        // Refused, Open Plantbook's client exchanges its credentials for a new token and tries once more.
        let expected = provider == .openPlantbook && failure.code == .unauthorized ? 3 : failure.requests
        #expect(server.requests.count - before == expected)
        if failure.code == .rateLimited { #expect(error?.retryAfter == .seconds(60)) }
        // A 404 is an answer: the provider is up.
        #expect(requester.reachability.current.lastError == (failure.code == .notFound ? "" : error?.message))
    }

    @Test("429 with a short Retry-After is waited out and retried once; a 5xx once is retried")
    func retriedOnce() async throws {
        let fakes = try FakeCareProviders()
        let client = Self.perenual(fakes)
        fakes.inject(.perenual, [.status(429, headers: ["Retry-After": "0"])])
        let first = try await client.details(id: 710)
        fakes.inject(.perenual, [.status(502)])
        let second = try await client.details(id: 710)

        #expect(first.species.id == 710 && second.species.id == 710)
        #expect(fakes.perenual.requests.count == 4)
        #expect(client.requester.rateLimited.count == 1)
    }

    @Test("Perenual: the recorded details map, paid-plan placeholders are missing values, the key travels in the query")
    func perenualDetails() async throws {
        let fakes = try FakeCareProviders()
        let client = Self.perenual(fakes)

        let details = try await client.details(id: 710)

        #expect(fakes.perenual.requests.first?.query["key"] == "test-key")
        let care = PerenualMapping.careInfo(from: details.species, fetchedAt: Date(timeIntervalSince1970: 0))
        #expect(care.scientificName == "Alocasia amazonica" && care.family == "Araceae" && care.habit == .houseplant)
        #expect(care.watering.frequency == .weekly && care.watering.intervalDays == 7)
        #expect(care.light.level == .partialShade)
        #expect(care.temperature.minimumCelsius == 1.7 && !care.temperature.isFrostTolerant)
        #expect(care.growthRate == .fast && care.toxicity == .medium)
        #expect(care.notes.contains("Poisonous to pets (Perenual)."))
        #expect(care.fieldSources?[.humidity] == nil && care.fieldSources?[.watering] == .perenual)

        // The recorded placeholder text (its `other_images`) in place of a value reads as missing.
        var object = try #require(try JSONSerialization.jsonObject(with: details.raw) as? [String: Any])
        let placeholder = try #require(object["other_images"] as? String)
        object["watering"] = placeholder
        object["growth_rate"] = "Coming Soon"
        let withheld = try #require(PerenualSpecies(object))
        #expect(withheld.watering == nil && withheld.growthRate == nil)
        #expect(PerenualMapping.careInfo(from: withheld, fetchedAt: Date()).fieldSources?[.watering] == nil)
    }

    @Test("Perenual: the v2 documentation example names the fields PlantGuide reads")
    func perenualV2FieldNames() throws {
        let text = try Fixtures.providerText("perenual-species-details-v2-docs-example-gardentime")
        for field in ["\"watering\"", "\"watering_general_benchmark\"", "\"sunlight\"", "\"hardiness\"", "\"growth_rate\"",
                      "\"poisonous_to_pets\"", "\"indoor\"", "\"care_level\"", "\"edible_leaf\""] {
            #expect(text.contains(field), "v2 example lacks \(field)")
        }
    }

    @Test("Perenual: a spent daily budget fails at once without a request, and the next UTC day has a new one")
    func perenualBudget() async throws {
        let fakes = try FakeCareProviders()
        let clock = TestClock()
        let client = Self.perenual(fakes, budget: 2, clock: clock)
        _ = try await client.search("alocasia")
        _ = try await client.details(id: 710)
        #expect(client.budgetLeft == 0)

        let spent = await #expect(throws: ProviderError.self) { _ = try await client.details(id: 710) }

        #expect(spent?.code == .rateLimited && spent?.message.contains("budget of 2") == true)
        #expect(fakes.perenual.requests.count == 2)
        clock.advance(days: 1)
        #expect(client.budgetLeft == 2)
        _ = try await client.details(id: 710)
        #expect(fakes.perenual.requests.count == 3)
    }

    @Test("GBIF: the recorded match gives the accepted species; no match and a higher rank give none")
    func gbifMatch() async throws {
        let fakes = try FakeCareProviders()
        var configuration = GBIFConfiguration(baseURL: fakes.gbif.baseURL)
        configuration.limits = Self.fastLimits
        let client = GBIFClient(configuration: configuration)

        let match = try await client.match("Helianthus annuus L.").match
        let none = try await client.match("Swiss cheese plant").match

        #expect(match.acceptedSpecies == "Helianthus annuus" && match.family == "Asteraceae")
        #expect(fakes.gbif.requests.first?.query == ["name": "Helianthus annuus L.", "kingdom": "Plantae"])
        #expect(none.acceptedSpecies == nil)
        var genusOnly = match
        genusOnly.rank = "GENUS"
        genusOnly.matchType = "HIGHERRANK"
        #expect(genusOnly.acceptedSpecies == nil)
    }

    @Test("the circuit breaker stops asking after failures in a row, and lets a request through after the cool-down")
    func circuitBreaker() async throws {
        let fakes = try FakeCareProviders()
        var configuration = PerenualConfiguration(baseURL: fakes.perenual.baseURL, key: "test-key")
        configuration.limits = Self.fastLimits
        configuration.limits.breakerThreshold = 2
        // Long enough that the third call, however late a busy machine makes it, still meets the open breaker.
        configuration.limits.breakerCooldown = TestTime.scaled(.seconds(3))
        let client = PerenualClient(configuration: configuration)
        fakes.inject(.perenual, Array(repeating: .status(500), count: 4))

        for _ in 0..<2 { _ = try? await client.details(id: 710) }
        let open = await #expect(throws: ProviderError.self) { _ = try await client.details(id: 710) }

        #expect(open?.code == .unavailable && open?.message.contains("not asked after 2 failures") == true)
        #expect(fakes.perenual.requests.count == 4)
        try await Task.sleep(for: configuration.limits.breakerCooldown + .milliseconds(100))
        #expect(try await client.details(id: 710).species.id == 710)
    }
}
