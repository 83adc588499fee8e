import Foundation
import PlantGuideCore

/// A live source of care data that the chain asks by name: Trefle, Open Plantbook, Perenual.
protocol CareDataProvider: Sendable {
    /// What its fields are marked with.
    var source: CareSource { get }
    /// Its name in messages: "Open Plantbook".
    var name: String { get }
    var isConfigured: Bool { get }
    /// The start of its cache keys: empty for Trefle (whose entries predate the others'), else "perenual:".
    var cacheKeyPrefix: String { get }
    /// The care fields whose absence makes it worth asking (the ones it answers well).
    var answers: Set<CareField> { get }
    /// The requests it sent and how it fared.
    var requester: UpstreamRequester { get }
    /// Whether each request spends a small daily budget (Perenual): then it is asked only after the providers
    /// before it that could make it unnecessary have answered.
    var spendsBudget: Bool { get }

    /// The provider's record of `name`, nil when it has no such species.
    /// - Throws: ``ProviderError`` when it could not be asked or its answer could not be read.
    func record(of name: ScientificName, fetchedAt: Date) async throws -> ProviderRecord?
}

/// A provider's answer as the cache keeps it: the mapped care fields, and Trefle's id and body as received (at most
/// `UpstreamLimits.maxBodyBytes`); the other providers' bodies are not kept, only the fields read from them.
struct ProviderRecord: Sendable {
    var care: CareInfo
    var raw: Data? = nil
    var trefleID: Int? = nil
}

extension CareDataProvider {
    var spendsBudget: Bool { false }

    func cacheKey(_ name: ScientificName) -> String { cacheKeyPrefix + CareCache.key(for: name) }
}

/// Trefle in the chain: the species by slug, else the first search result of the same name.
struct TrefleProvider: CareDataProvider {
    let client: TrefleClient
    var source: CareSource { .trefle }
    var name: String { "Trefle" }
    var isConfigured: Bool { client.isConfigured }
    var cacheKeyPrefix: String { "" }
    var answers: Set<CareField> { Set(CareField.allCases) }
    var requester: UpstreamRequester { client.requester }

    func record(of name: ScientificName, fetchedAt: Date) async throws -> ProviderRecord? {
        let record: (species: TrefleSpecies, raw: Data)
        do {
            record = try await client.speciesRecord(CareInfoProvider.slug(of: name))
        } catch let error as ProviderError where error.code == .notFound {
            let page = try await client.searchSpecies(name.canonical)
            guard let match = page.data.first(where: { CareCache.key(for: $0.scientificName) == CareCache.key(for: name) }) else {
                return nil
            }
            record = try await client.speciesRecord(String(match.id))
        }
        return ProviderRecord(care: Self.careInfo(from: record.species, fetchedAt: fetchedAt), raw: record.raw,
                              trefleID: record.species.id)
    }

    /// Trefle's record mapped, with a temperature range outside ``CarePlausibility`` not served (its field left to
    /// the next source, the value named in `discardedValues`).
    static func careInfo(from species: TrefleSpecies, fetchedAt: Date) -> CareInfo {
        var care = TrefleCareMapping.careInfo(from: species, fetchedAt: fetchedAt)
        let growth = species.growth
        let check = CarePlausibility.check(growth?.minimumTemperature?.celsius, growth?.maximumTemperature?.celsius,
                                           within: CarePlausibility.celsius, unit: "°C", strictlyOrdered: true)
        if case .implausible(let reason) = check {
            care.temperature = .default
            care.fieldSources?[.temperature] = nil
            care.discardedValues = [CarePlausibility.note("Trefle", "temperature range", reason)]
        }
        return care
    }
}

/// Open Plantbook in the chain: the detail of the species' pid (its lower-cased name), asked when a measured
/// range is missing.
struct OpenPlantbookProvider: CareDataProvider {
    let client: OpenPlantbookClient
    var source: CareSource { .openPlantbook }
    var name: String { "Open Plantbook" }
    var isConfigured: Bool { client.isConfigured }
    var cacheKeyPrefix: String { "openplantbook:" }
    var answers: Set<CareField> { [.temperature, .humidity, .light] }
    var requester: UpstreamRequester { client.requester }

    func record(of name: ScientificName, fetchedAt: Date) async throws -> ProviderRecord? {
        do {
            let detail = try await client.detail(pid: name.canonical.lowercased())
            return ProviderRecord(care: OpenPlantbookMapping.careInfo(from: detail.plant, fetchedAt: fetchedAt))
        } catch let error as ProviderError where error.code == .notFound {
            return nil
        }
    }
}

/// Perenual in the chain: the species of the same name in a search, then its details (two requests of the daily
/// budget), asked only when watering, light or temperature is still missing.
struct PerenualProvider: CareDataProvider {
    let client: PerenualClient
    var source: CareSource { .perenual }
    var name: String { "Perenual" }
    var isConfigured: Bool { client.isConfigured }
    var cacheKeyPrefix: String { "perenual:" }
    var answers: Set<CareField> { [.watering, .light, .temperature] }
    var requester: UpstreamRequester { client.requester }
    var spendsBudget: Bool { true }

    func record(of name: ScientificName, fetchedAt: Date) async throws -> ProviderRecord? {
        let key = CareCache.key(for: name)
        guard let match = try await client.search(name.canonical).first(where: { summary in
            summary.scientificNames.contains { CareCache.key(for: $0) == key }
        }) else { return nil }
        do {
            let details = try await client.details(id: match.id)
            return ProviderRecord(care: PerenualMapping.careInfo(from: details.species, fetchedAt: fetchedAt))
        } catch let error as ProviderError where error.code == .notFound {
            return nil
        }
    }
}
