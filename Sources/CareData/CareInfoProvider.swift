import Foundation
import PlantGuideCore
import PlantGuideHTTP
import Synchronization

/// Answers "how do I care for this species?": a fresh cache entry, else Trefle (one fetch per species at a
/// time, shared by concurrent requests), else the stale entry when Trefle fails, else the offline catalog,
/// else the catalog's care of the genus (source `default`), else NOT_FOUND saying what was tried.
public final class CareInfoProvider: Sendable {
    public let configuration: CareDataConfiguration
    public let cache: CareCache
    public let trefle: TrefleClient
    public let catalog: CareCatalog
    private let inflight = Mutex<[String: Task<Outcome, Never>]>([:])
    private let counters = Counters()

    /// What one upstream fetch ended with.
    enum Outcome: Sendable {
        case found(CareInfo)
        case notFound(String)
        case failed(TrefleError)
    }

    /// - Parameter cache: the cache to use; nil opens the SQLite one in the configuration's data folder.
    public init(configuration: CareDataConfiguration, cache: CareCache? = nil, http: any HTTPClient = CurlHTTPClient(),
                catalog: CareCatalog) throws {
        self.configuration = configuration
        self.cache = try cache ?? CareCache(path: configuration.databasePath)
        trefle = TrefleClient(configuration: configuration.trefle, http: http)
        self.catalog = catalog
    }

    // MARK: Lookups

    /// Care info by scientific name.
    /// - Throws: `CareDataError` (invalidArgument for a name that is no name; notFound when nothing knows it).
    public func careInfo(scientificName: String) async throws -> CareInfo {
        guard let name = ScientificName(scientificName) else {
            throw CareDataError.invalidArgument("scientific_name", .invalidFormat, "'\(scientificName)' is not a scientific name")
        }
        let key = CareCache.key(for: name)
        let entry = try await cache.entry(key: key)
        if let entry, isFresh(entry) {
            counters.hits.increment()
            if let care = entry.care { return with(care, source: .cache) }
            return try fallback(name, tried: ["Trefle: no such species (answer cached \(entry.fetchedAt))"])
        }
        counters.misses.increment()
        guard trefle.isConfigured else {
            if let stale = entry?.care { return served(stale) }
            return try fallback(name, tried: ["Trefle: not configured"])
        }
        switch await shared(key, { await self.fetch(name: name, key: key) }) {
        case .found(let care):
            return care
        case .notFound(let message):
            return try fallback(name, tried: ["Trefle: \(message)"])
        case .failed(let error):
            if let stale = entry?.care { return served(stale) }
            return try fallback(name, tried: ["Trefle: \(error.message)"])
        }
    }

    /// Care info by Trefle species id.
    /// - Throws: `CareDataError.notFound` when neither the cache nor Trefle has it.
    public func careInfo(trefleID: Int) async throws -> CareInfo {
        let entry = try await cache.entry(trefleID: trefleID)
        if let entry, isFresh(entry), let care = entry.care {
            counters.hits.increment()
            return with(care, source: .cache)
        }
        counters.misses.increment()
        switch await shared("#\(trefleID)", { await self.fetch(trefleID: trefleID) }) {
        case .found(let care):
            return care
        case .notFound(let message):
            throw CareDataError(.notFound, "no species with Trefle id \(trefleID): \(message)")
        case .failed(let error):
            if let stale = entry?.care { return served(stale) }
            throw CareDataError(.notFound, "no care data for Trefle id \(trefleID): cache has none and Trefle failed: \(error.message)")
        }
    }

    /// Drops the cache entry of a name or Trefle id; returns whether there was one.
    public func invalidate(scientificName: String?, trefleID: Int?) async throws -> Bool {
        let key = scientificName.flatMap(CareCache.key(for:))
        guard key != nil || trefleID != nil else {
            throw CareDataError.invalidArgument("key", .required, "give a scientific name or a Trefle id")
        }
        return try await cache.remove(key: key, trefleID: trefleID)
    }

    /// Cache counters and sizes.
    public func statistics() async throws -> Statistics {
        let freshAfter = configuration.now().addingTimeInterval(-Self.seconds(configuration.cacheTTL))
        let counts = try await cache.counts(freshAfter: freshAfter)
        return Statistics(
            entries: counts.entries, freshEntries: counts.fresh, notFoundEntries: counts.notFound,
            hits: counters.hits.count, misses: counters.misses.count,
            upstreamCalls: trefle.requestCount, upstreamRateLimited: trefle.rateLimitedCount,
            staleServed: counters.staleServed.count)
    }

    /// What `statistics()` reports.
    public struct Statistics: Sendable {
        public var entries, freshEntries, notFoundEntries, hits, misses, upstreamCalls, upstreamRateLimited, staleServed: Int
    }

    // MARK: Upstream

    /// Runs `work` once per key at a time; concurrent callers share its outcome.
    private func shared(_ key: String, _ work: @escaping @Sendable () async -> Outcome) async -> Outcome {
        let task = inflight.withLock { tasks in
            if let running = tasks[key] { return running }
            let task = Task { await work() }
            tasks[key] = task
            return task
        }
        let outcome = await task.value
        inflight.withLock { tasks in
            if tasks[key] == task { tasks[key] = nil }
        }
        return outcome
    }

    private func fetch(name: ScientificName, key: String) async -> Outcome {
        // A request that missed the cache just before another's fetch stored its answer finds it here.
        if let entry = try? await cache.entry(key: key), isFresh(entry), let care = entry.care {
            return .found(with(care, source: .cache))
        }
        do {
            let record: (species: TrefleSpecies, raw: Data)
            do {
                record = try await trefle.speciesRecord(Self.slug(of: name))
            } catch let error as TrefleError where error.code == .notFound {
                let page = try await trefle.searchSpecies(name.canonical)
                guard let match = page.data.first(where: { CareCache.key(for: $0.scientificName) == key }) else {
                    try await cache.store(.init(key: key, care: nil, fetchedAt: configuration.now()))
                    return .notFound("no species named \(name.canonical)")
                }
                record = try await trefle.speciesRecord(String(match.id))
            }
            return .found(try await store(record))
        } catch let error as TrefleError {
            return .failed(error)
        } catch {
            return .failed(TrefleError(.badResponse, "Trefle's answer could not be read or cached"))
        }
    }

    private func fetch(trefleID: Int) async -> Outcome {
        do {
            return .found(try await store(try await trefle.speciesRecord(String(trefleID))))
        } catch let error as TrefleError where error.code == .notFound {
            return .notFound(error.message)
        } catch let error as TrefleError {
            return .failed(error)
        } catch {
            return .failed(TrefleError(.badResponse, "Trefle's answer could not be read or cached"))
        }
    }

    private func store(_ record: (species: TrefleSpecies, raw: Data)) async throws -> CareInfo {
        let care = TrefleCareMapping.careInfo(from: record.species, fetchedAt: configuration.now())
        let key = CareCache.key(for: care.scientificName) ?? care.scientificName.lowercased()
        try await cache.store(.init(key: key, trefleID: record.species.id, care: care, raw: record.raw, fetchedAt: care.fetchedAt))
        return care
    }

    // MARK: Fallbacks

    private func fallback(_ name: ScientificName, tried: [String]) throws -> CareInfo {
        if let care = catalog.care(for: name.canonical) { return care }
        if let genusCare = catalog.care(forGenus: name.genus) {
            var care = genusCare
            care.notes.insert(
                "No care data for \(name.canonical) itself: this is the care of \(genusCare.scientificName), of the same genus.",
                at: 0)
            care.scientificName = name.canonical
            care.commonNames = []
            care.trefleID = nil
            care.source = .default
            return care
        }
        let attempts = ["cache: no entry"] + tried + ["catalog: neither \(name.canonical) nor the genus \(name.genus)"]
        throw CareDataError(.notFound, "no care data for \(name.canonical); tried \(attempts.joined(separator: "; "))")
    }

    private func served(_ stale: CareInfo) -> CareInfo {
        counters.staleServed.increment()
        var care = with(stale, source: .staleCache)
        care.isStale = true
        return care
    }

    private func with(_ care: CareInfo, source: CareSource) -> CareInfo {
        var care = care
        care.source = source
        return care
    }

    private func isFresh(_ entry: CareCache.Entry) -> Bool {
        let ttl = entry.isNotFound ? configuration.notFoundTTL : configuration.cacheTTL
        return configuration.now().timeIntervalSince(entry.fetchedAt) < Self.seconds(ttl)
    }

    /// Trefle's slug of a binomial: "Sorbus aucuparia" → "sorbus-aucuparia".
    static func slug(of name: ScientificName) -> String {
        name.canonical.lowercased().replacingOccurrences(of: " ", with: "-")
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private struct Counters: Sendable {
        let hits = CountingMetric("plantguide_caredata_cache_hits_total")
        let misses = CountingMetric("plantguide_caredata_cache_misses_total")
        let staleServed = CountingMetric(nil)
    }
}
