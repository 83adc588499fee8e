@testable import CareData
import Foundation
import PlantGuideCore
import PlantGuideHTTP
import PlantGuideTestSupport
import Testing

/// The chain against providers that send what they should not: implausible values, fields of the wrong type,
/// no answer, retries, huge bodies; and over https with a CA the test makes. The fakes replay the recorded bodies
/// of Open Plantbook (Acer buergerianum) and Perenual (Alocasia amazonica), changed field by field.
extension ProviderChainTests {
    /// The recorded Open Plantbook detail with `changes` made.
    static func openPlantbookEdited(_ changes: [String: Any]) -> FakeCareProviders.Fault {
        let values = changes.mapValues { SendableJSON(value: $0) }
        return .edit { object in object.merging(values.mapValues(\.value)) { $1 } }
    }

    @Test("implausible Open Plantbook values are not served: the field falls to the next source and a note names the provider",
          arguments: TestBackend.allCases)
    func implausibleValues(backend: TestBackend) async throws {
        let cases: [(changes: [String: Any], field: CareField, words: String)] = [
            (["min_temp": -300, "max_temp": 9999], .temperature, "implausible temperature range (-300 °C to 9999 °C"),
            (["min_temp": 45, "max_temp": -20], .temperature, "the minimum is not below the maximum"),
            (["min_temp": 20, "max_temp": 20], .temperature, "the minimum is not below the maximum"),
            (["min_env_humid": 500, "max_env_humid": 900], .humidity, "implausible humidity range (500 % to 900 %"),
            (["min_light_lux": -5_000, "max_light_lux": -100], .light, "implausible light range (-5000 lux to -100 lux"),
        ]
        for (changes, field, words) in cases {
            let fakes = try FakeCareProviders()
            fakes.inject(.openPlantbook, [Self.openPlantbookEdited(changes)])
            let chain = try await provider(fakes, on: try await newStores(backend), catalog: try Self.catalogWithoutAlocasia())

            let care = try await chain.careInfo(scientificName: "Acer buergerianum")

            #expect(care.fieldSources?[field] != .openPlantbook, "\(changes): \(field) still served from Open Plantbook")
            #expect(care.notes.contains { $0.hasPrefix("Open Plantbook gave an implausible") && $0.contains(words) },
                    "\(changes): \(care.notes)")
            // The record's other fields are kept.
            let others: Set<CareField> = Set([.temperature, .humidity, .light]).subtracting([field])
            for other in others where other != .light || field != .temperature {
                #expect(care.fieldSources?[other] == .openPlantbook, "\(changes): \(other) lost")
            }
            if field == .temperature {  // Acer palmatum's, the catalog's species of the genus
                #expect(care.temperature.minimumCelsius == -20 && care.temperature.maximumCelsius == 30)
            }
        }
    }

    @Test("one ill-typed Open Plantbook field is dropped and the rest of the record kept; a number sent as text is read",
          arguments: TestBackend.allCases)
    func illTypedFields(backend: TestBackend) async throws {
        let fakes = try FakeCareProviders()
        fakes.inject(.openPlantbook, [Self.openPlantbookEdited(["min_temp": "warm", "max_env_humid": "80", "category": 7])])
        let chain = try await provider(fakes, on: try await newStores(backend), catalog: try Self.catalogWithoutAlocasia())

        let care = try await chain.careInfo(scientificName: "Acer buergerianum")

        #expect(care.source == .openPlantbook)
        #expect(care.fieldSources?[.humidity] == .openPlantbook && care.humidity == .medium)  // (30 + "80") / 2 = 55
        #expect(care.fieldSources?[.light] == .openPlantbook && care.light.level == .fullSun)
        #expect(care.fieldSources?[.temperature] == .openPlantbook && care.temperature.maximumCelsius == 35)
        #expect(care.notes.contains("Open Plantbook sent min_temp as text that is not a number; not used."))
        #expect(care.notes.contains("Open Plantbook sent category as a value that is not text; not used."))
    }

    @Test("Perenual: toxicity as \"1\", 1 or true is a warning, a benchmark of \"-5\" days is not read as 5")
    func perenualForms() async throws {
        let recorded = try JSONSerialization.jsonObject(with: try Fixtures.provider("perenual-species-details-greenpets-alocasia")) as? [String: Any]
        for form in ["1", 1, true, "true"] as [Any] {
            var object = try #require(recorded)
            object["poisonous_to_pets"] = form
            object["poisonous_to_humans"] = 0
            let care = PerenualMapping.careInfo(from: try #require(PerenualSpecies(object)), fetchedAt: Date())
            #expect(care.toxicity == .medium && care.fieldSources?[.toxicity] == .perenual, "\(form)")
        }
        var object = try #require(recorded)
        object["poisonous_to_pets"] = "0"
        object["poisonous_to_humans"] = false
        #expect(PerenualMapping.careInfo(from: try #require(PerenualSpecies(object)), fetchedAt: Date()).toxicity == Toxicity.none)

        object["watering_general_benchmark"] = ["value": "-5", "unit": "days"]
        let care = PerenualMapping.careInfo(from: try #require(PerenualSpecies(object)), fetchedAt: Date())
        #expect(care.watering.intervalDays != 5 && care.watering.intervalDays == WateringFrequency.weekly.intervalDays)
        #expect(care.discardedValues?.contains { $0.contains("watering benchmark") && $0.contains("-5") } == true)
        object["watering_general_benchmark"] = ["value": "10-7", "unit": "days"]
        #expect(PerenualMapping.careInfo(from: try #require(PerenualSpecies(object)), fetchedAt: Date()).watering.intervalDays == 7)
        object["watering_general_benchmark"] = ["value": "5-8", "unit": "days"]
        #expect(PerenualMapping.careInfo(from: try #require(PerenualSpecies(object)), fetchedAt: Date()).watering.intervalDays == 5)
    }

    @Test("Perenual: a 503 and its retry spend 2 of the daily budget", arguments: TestBackend.allCases)
    func budgetCountsRetries(backend: TestBackend) async throws {
        let fakes = try FakeCareProviders()
        fakes.inject(.perenual, [.status(503)])
        let chain = try await provider(fakes, on: try await newStores(backend), catalog: try Self.catalogWithoutAlocasia())

        let care = try await chain.careInfo(scientificName: "Alocasia amazonica")

        #expect(care.fieldSources?[.watering] == .perenual)
        #expect(fakes.perenual.requests.map(\.path) == ["/api/v2/species-list", "/api/v2/species-list", "/api/v2/species/details/710"])
        #expect(chain.perenual.budgetLeft == chain.perenual.configuration.dailyBudget - 3)
    }

    @Test("a 10 MB answer is refused before it is read, and the cache stays small", arguments: TestBackend.allCases)
    func hugeBody(backend: TestBackend) async throws {
        let fakes = try FakeCareProviders()
        // The recorded detail with a 10 MB "pruning" text, put together as bytes: serialising it as JSON would hold a
        // cooperative thread for seconds.
        let recorded = try Fixtures.provider("openplantbook-plant-detail-official-postman")
        let end = try #require(recorded.lastIndex(of: UInt8(ascii: "}")))
        let huge = recorded[..<end] + Data(#", "pruning": ""#.utf8) + Data(repeating: UInt8(ascii: "x"), count: 10 << 20) + Data(#""}"#.utf8)
        #expect((try? JSONSerialization.jsonObject(with: recorded)) != nil && huge.count > 10 << 20)
        fakes.inject(.openPlantbook, [.body(huge)])
        let stores = try await newStores(backend)
        let chain = try await provider(fakes, on: stores, catalog: try Self.catalogWithoutAlocasia())

        let care = try await chain.careInfo(scientificName: "Acer buergerianum")
        _ = try await chain.careInfo(scientificName: "Alocasia amazonica")

        #expect(care.fieldSources?[.temperature] != .openPlantbook)
        #expect(care.notes.contains { $0.hasPrefix("Open Plantbook could not be asked") && $0.contains("over 1048576 bytes") })
        let rows = try await stores.entries().rows(after: "", limit: 1_000)
        let bytes = rows.map { ($0.careJSON?.count ?? 0) + ($0.rawJSON?.count ?? 0) }.reduce(0, +)
        #expect(!rows.isEmpty && bytes < 64 << 10, "\(rows.count) entries, \(bytes) bytes")
    }

    @Test("Open Plantbook over https with a CA the test made: trusted with it, refused without it or under another host name")
    func providerOverHTTPS() async throws {
        let authority = try await TestCertificateAuthority.make()
        let fakes = try FakeCareProviders()
        let front = try await TLSFront(for: fakes.openPlantbook.baseURL, authority: authority)
        defer { front.stop() }
        let trusting = CurlHTTPClient(authorities: try CertificateAuthorities(addingFile: authority.caFile))
        let catalog = try Self.catalogWithoutAlocasia()

        let trusted = try await provider(fakes, on: try await newStores(.sqlite), catalog: catalog, perenual: false,
                                         http: trusting, openPlantbookURL: front.url())
        let care = try await trusted.careInfo(scientificName: "Acer buergerianum")
        #expect(care.fieldSources?[.temperature] == .openPlantbook && care.temperature.maximumCelsius == 35)

        for (http, url, words) in [(CurlHTTPClient() as any HTTPClient, front.url(), "certificate"),
                                   (trusting, front.url(host: "127.0.0.1"), "127.0.0.1")] {
            let refused = try await provider(fakes, on: try await newStores(.sqlite), catalog: catalog, perenual: false,
                                             http: http, openPlantbookURL: url)
            let answer = try await refused.careInfo(scientificName: "Acer buergerianum")
            #expect(answer.fieldSources?[.temperature] != .openPlantbook)
            #expect(answer.notes.contains { $0.hasPrefix("Open Plantbook could not be asked") && $0.contains(words) }, "\(answer.notes)")
        }
    }
}

/// A JSON value held across a `@Sendable` edit (only strings, numbers and booleans are used).
private struct SendableJSON: @unchecked Sendable {
    let value: Any
}

