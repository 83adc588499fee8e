@testable import CareData
import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import Testing

/// A lookup answers on time whatever its providers do: within its budget with the fields that came, and before its
/// caller's deadline. Timed, so Scripts/test runs this suite alone, after the others.
@Suite("Care data lookups on time: the lookup budget and the caller's deadline")
struct CareLookupDeadlineTests {
    let chains = ProviderChainTests()

    @Test("a hanging Open Plantbook: the lookup answers within its budget with Perenual's fields; the late answer serves the next",
          arguments: TestBackend.allCases)
    func hangingProvider(backend: TestBackend) async throws {
        let fakes = try FakeCareProviders()
        // Open Plantbook answers (that it has no Alocasia amazonica) only once the lookup has answered; Perenual at once.
        let gate = FakeCareProviders.Gate()
        defer { gate.open() }
        fakes.inject(.openPlantbook, [.until(gate)])
        var slowLimits = ProviderClientTests.fastLimits
        slowLimits.timeout = .seconds(60)
        let budget = TestTime.scaled(.seconds(3))
        let chain = try await chains.provider(fakes, on: try await chains.newStores(backend),
                                              catalog: try ProviderChainTests.catalogWithoutAlocasia(),
                                              openPlantbookLimits: slowLimits, lookupBudget: budget)

        let start = ContinuousClock.now
        let care = try await chain.careInfo(scientificName: "Alocasia amazonica", deadline: .now + .seconds(60))
        let waited = start.duration(to: .now)
        gate.open()

        #expect(waited >= budget && waited < budget + TestTime.scaled(.seconds(1)), "answered after \(waited)")
        #expect(care.source == .perenual && care.fieldSources?[.watering] == .perenual && care.watering.intervalDays == 7)
        #expect(care.fieldSources?[.temperature] == .perenual && care.temperature.minimumCelsius == 1.7)
        #expect(care.notes.contains { $0.hasPrefix("Open Plantbook did not answer in time") })
        #expect(fakes.openPlantbook.requests.contains { $0.path.hasPrefix("/api/v1/plant/detail/") })

        // The late answer fills the cache: once it has come, the next lookup uses it without asking again.
        let cached = ContinuousClock.now + TestTime.scaled(.seconds(10))
        while try await chain.cache.entry(key: "openplantbook:alocasia amazonica") == nil && ContinuousClock.now < cached {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try await chain.cache.entry(key: "openplantbook:alocasia amazonica")?.isNotFound == true)
        let asked = fakes.openPlantbook.requests.count
        let next = try await chain.careInfo(scientificName: "Alocasia amazonica")
        #expect(next.fieldSources?[.watering] == .perenual && fakes.openPlantbook.requests.count == asked)
        #expect(!next.notes.contains { $0.contains("did not answer in time") })
    }

    @Test("a caller's deadline cuts every request's time-out: a short deadline with a hanging provider answers before it ends")
    func callerDeadline() async throws {
        let fakes = try FakeCareProviders()
        fakes.inject(.openPlantbook, [.hang, .hang])
        fakes.inject(.perenual, [.hang, .hang, .hang, .hang])
        let chain = try await chains.provider(fakes, on: try await chains.newStores(.sqlite),
                                              catalog: try ProviderChainTests.catalogWithoutAlocasia())

        let start = ContinuousClock.now
        let outcome = await #expect(throws: CareDataError.self) {
            _ = try await chain.careInfo(scientificName: "Alocasia amazonica", deadline: .now + .milliseconds(1_500))
        }
        let waited = start.duration(to: .now)
        #expect(waited < .milliseconds(1_500) + TestTime.scaled(.milliseconds(500)), "answered after \(waited)")
        #expect(outcome?.code == .notFound)
        // Perenual's search was cut to the deadline and not retried: no time was left for a retry.
        try await Task.sleep(for: .seconds(1))
        #expect(fakes.perenual.requests.count == 1)
    }
}
