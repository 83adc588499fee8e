import Foundation
import PlantGuideCore
import PlantGuideHTTP
import Synchronization

/// Answers "how do I care for this species?" from a chain of sources, field by field (``CareMerge``):
///
/// 1. The name: a common name the catalog knows, else the scientific name, which GBIF matches to the accepted
///    species unless the catalog knows it as written.
/// 2. Trefle, when configured; the offline catalog; Open Plantbook when a measured range is still missing;
///    Perenual (within its daily budget) when watering, light or temperature still is.
/// 3. Each provider's record comes from the cache while fresh (7 days; "not found" for 1 day), else from one fetch
///    shared by concurrent requests; when the fetch fails, from the stale entry (the answer is then flagged stale);
///    a provider that fails, throttles or is off changes only the fields it would have given.
/// 4. Fields no source has: the catalog's care of another species of the genus, else the defaults of what the plant is
///    (``CareProfile``), each marked `default`. Nothing at all known: NOT_FOUND saying what was tried.
public final class CareInfoProvider: Sendable {
    public let configuration: CareDataConfiguration
    public let cache: CareCache
    public let trefle: TrefleClient
    public let openPlantbook: OpenPlantbookClient
    public let perenual: PerenualClient
    public let gbif: GBIFClient
    public let catalog: CareCatalog
    private let providers: [any CareDataProvider]
    private let inflight = Mutex<[String: Task<Outcome, Never>]>([:])
    private let merged = MergedAnswers()
    private let counters = Counters()

    /// What one upstream fetch ended with: a record (nil: the provider has no such species) or a failure.
    enum Outcome: Sendable {
        case found(CareInfo?)
        case failed(ProviderError)
    }

    /// What a lookup of one provider found.
    enum Lookup: Sendable {
        /// A fresh cache entry (nil: cached "not found"), fetched at that time.
        case cached(CareInfo?, Date)
        /// Fetched for this request (nil: the provider has no such species).
        case fetched(CareInfo?)
        /// The fetch failed and an expired entry stands in.
        case stale(CareInfo, ProviderError)
        case failed(ProviderError)
    }

    /// - Parameter cache: the cache to use; nil opens the SQLite one in the configuration's data folder.
    public init(configuration: CareDataConfiguration, cache: CareCache? = nil, http: any HTTPClient = CurlHTTPClient(),
                catalog: CareCatalog) throws {
        self.configuration = configuration
        self.cache = try cache ?? CareCache(path: configuration.databasePath)
        trefle = TrefleClient(configuration: configuration.trefle, http: http)
        openPlantbook = OpenPlantbookClient(configuration: configuration.openPlantbook, http: http)
        perenual = PerenualClient(configuration: configuration.perenual, http: http)
        gbif = GBIFClient(configuration: configuration.gbif, http: http)
        providers = [TrefleProvider(client: trefle), OpenPlantbookProvider(client: openPlantbook), PerenualProvider(client: perenual)]
        self.catalog = catalog
    }

    // MARK: Lookups

    /// Care info by scientific or common name, answered by `deadline` (the caller's) or within the configured
    /// lookup budget, whichever comes first: providers that have not answered by then are named in the notes, and
    /// their answers, when they come, fill the cache for the next lookup.
    /// - Throws: `CareDataError` (invalidArgument for a name that is no name; notFound when nothing knows it).
    public func careInfo(scientificName text: String, deadline: ContinuousClock.Instant? = nil) async throws -> CareInfo {
        if let care = merged.answer(text, now: configuration.now()) {
            counters.hits.increment()
            return care
        }
        let budgetEnd = ContinuousClock.now + configuration.lookupBudget
        let answerBy = deadline.map { min($0 - Self.answerMargin, budgetEnd) } ?? budgetEnd
        return try await RequestDeadline.$current.withValue(deadline) {
            try await lookUp(text, answerBy: answerBy)
        }
    }

    /// How long before the caller's deadline the answer is put together: time for the merge and the reply.
    static let answerMargin: Duration = .milliseconds(250)

    private func lookUp(_ text: String, answerBy: ContinuousClock.Instant) async throws -> CareInfo {
        // GBIF's match comes first (the providers are asked for the accepted name): it may take half the time.
        let resolution = try await resolve(text, answerBy: ContinuousClock.now + ContinuousClock.now.duration(to: answerBy) / 2)
        let name = resolution.name
        let (gathered, lookups, tried) = try await gather(name, answerBy: answerBy)
        var records = gathered
        if let gbif = resolution.gbif { records[.gbif] = gbif }
        let standIn = records[.catalog] == nil ? catalog.care(forGenus: name.genus) : nil
        guard var care = CareMerge.merge(name: name.canonical, records: records, standIn: standIn, now: configuration.now()) else {
            let attempts = tried + ["catalog: neither \(name.canonical) nor the genus \(name.genus)"]
            throw CareDataError(.notFound, "no care data for \(name.canonical); tried \(attempts.joined(separator: "; "))")
        }
        care.source = Self.overallSource(lookups, catalogUsed: care.fieldSources?.values.contains(.catalog) == true)
        care.isStale = care.source == .staleCache
        if let note = resolution.note { care.notes.insert(note, at: 0) }
        for provider in providers {
            guard case .failed(let error)? = lookups[provider.source] else { continue }
            care.notes.append(error.isLate
                ? "\(provider.name) did not answer in time; the fields it gives came from other sources (its answer, if it comes, serves the next lookup)."
                : "\(provider.name) could not be asked (\(error.message)); the fields it gives came from other sources.")
        }
        if let validUntil = validUntil(Array(lookups.values) + [resolution.lookup].compactMap { $0 }) {
            merged.keep(care, for: text, until: validUntil)
        }
        return care
    }

    /// The catalog's record of `name` and each provider's worth asking: Trefle always (when configured), the others
    /// only when a field they answer well is missing from the catalog. They are asked at once, except a provider
    /// that spends a daily budget, which waits for those before it that could answer all it would be asked for.
    /// Each is waited for until `answerBy`. With what each lookup found, and what was tried in words.
    private func gather(_ name: ScientificName, answerBy: ContinuousClock.Instant) async throws
        -> (records: [CareSource: CareInfo], lookups: [CareSource: Lookup], tried: [String])
    {
        var records: [CareSource: CareInfo] = [:]
        var lookups: [CareSource: Lookup] = [:]
        var tried: [String] = []
        if let care = catalog.care(for: name.canonical) { records[.catalog] = care }
        func missing(_ provider: any CareDataProvider) -> Set<CareField> {
            provider.answers.filter { field in !records.contains { source, record in CareMerge.supplies(record, field, as: source) } }
        }
        var asked: [any CareDataProvider] = []
        var waiting: [any CareDataProvider] = []
        for provider in providers {
            if provider.source != .trefle && missing(provider).isEmpty { continue }
            guard provider.isConfigured else {
                tried.append("\(provider.name): not configured")
                continue
            }
            let needed = missing(provider)
            if provider.spendsBudget && asked.contains(where: { $0.answers.isSuperset(of: needed) }) {
                waiting.append(provider)
            } else {
                asked.append(provider)
            }
        }
        for round in [asked, waiting] {
            let found = try await withThrowingTaskGroup(of: (CareSource, Lookup).self) { group in
                for provider in round where provider.source == .trefle || !missing(provider).isEmpty {
                    group.addTask { (provider.source, try await self.lookup(provider, name, answerBy: answerBy)) }
                }
                return try await group.reduce(into: [CareSource: Lookup]()) { $0[$1.0] = $1.1 }
            }
            for provider in round {
                guard let lookup = found[provider.source] else { continue }
                lookups[provider.source] = lookup
                switch lookup {
                case .cached(let care?, _), .fetched(let care?), .stale(let care, _): records[provider.source] = care
                case .cached(nil, _): tried.append("\(provider.name): no such species (answer cached)")
                case .fetched(nil): tried.append("\(provider.name): no such species")
                case .failed(let error): tried.append("\(provider.name): \(error.message)")
                }
            }
        }
        return (records, lookups, tried)
    }

    /// When the first of `lookups`' records expires; nil when one was stale or failed (such an answer is not kept).
    private func validUntil(_ lookups: [Lookup]) -> Date? {
        let now = configuration.now()
        var until = now.addingTimeInterval(Self.seconds(configuration.cacheTTL))
        for lookup in lookups {
            let expiry: Date
            switch lookup {
            case .cached(let care, let fetchedAt):
                expiry = fetchedAt.addingTimeInterval(Self.seconds(care == nil ? configuration.notFoundTTL : configuration.cacheTTL))
            case .fetched(let care):
                expiry = now.addingTimeInterval(Self.seconds(care == nil ? configuration.notFoundTTL : configuration.cacheTTL))
            case .stale, .failed:
                return nil
            }
            until = min(until, expiry)
        }
        return until
    }

    /// Care info by Trefle species id, with the fields Trefle lacks from the catalog or the defaults.
    /// - Throws: `CareDataError.notFound` when neither the cache nor Trefle has it.
    public func careInfo(trefleID: Int) async throws -> CareInfo {
        let entry = try await cache.entry(trefleID: trefleID)
        if let entry, isFresh(entry), let care = entry.care {
            counters.hits.increment()
            return merged(trefle: care, source: .cache)
        }
        counters.misses.increment()
        let outcome = await shared("#\(trefleID)") { [self] in
            do {
                let record = try await trefle.speciesRecord(String(trefleID))
                let care = TrefleProvider.careInfo(from: record.species, fetchedAt: configuration.now())
                try await store(care, key: CareCache.key(for: care.scientificName) ?? care.scientificName.lowercased(),
                                raw: record.raw, trefleID: record.species.id)
                return .found(care)
            } catch let error as ProviderError where error.code == .notFound {
                return .found(nil)
            } catch {
                return .failed(Self.providerError(error, "Trefle"))
            }
        }.value
        switch outcome {
        case .found(let care?):
            return merged(trefle: care, source: .trefle)
        case .found(nil):
            throw CareDataError(.notFound, "no species with Trefle id \(trefleID)")
        case .failed(let error):
            if let stale = entry?.care {
                counters.staleServed.increment()
                var care = merged(trefle: stale, source: .staleCache)
                care.isStale = true
                return care
            }
            throw CareDataError(.notFound, "no care data for Trefle id \(trefleID): cache has none and Trefle failed: \(error.message)")
        }
    }

    /// Drops the cache entries of a name (every provider's, and GBIF's match of it) or of a Trefle id; returns
    /// whether there was one.
    public func invalidate(scientificName: String?, trefleID: Int?) async throws -> Bool {
        let name = scientificName.flatMap(ScientificName.init)
        guard name != nil || trefleID != nil else {
            throw CareDataError.invalidArgument("key", .required, "give a scientific name or a Trefle id")
        }
        merged.removeAll()
        var removed = false
        if let name {
            let asked = scientificName.map { "gbif:" + $0.split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased() }
            for key in providers.filter({ $0.source != .trefle }).map({ $0.cacheKey(name) }) + [asked].compactMap({ $0 }) {
                if try await cache.remove(key: key, trefleID: nil) { removed = true }
            }
        }
        if try await cache.remove(key: name.map(CareCache.key(for:)), trefleID: trefleID) { removed = true }
        return removed
    }

    /// Cache counters and sizes.
    public func statistics() async throws -> Statistics {
        let freshAfter = configuration.now().addingTimeInterval(-Self.seconds(configuration.cacheTTL))
        let counts = try await cache.counts(freshAfter: freshAfter)
        let requesters = providers.map(\.requester) + [gbif.requester]
        return Statistics(
            entries: counts.entries, freshEntries: counts.fresh, notFoundEntries: counts.notFound,
            hits: counters.hits.count, misses: counters.misses.count,
            upstreamCalls: requesters.map(\.requests.count).reduce(0, +),
            upstreamRateLimited: requesters.map(\.rateLimited.count).reduce(0, +),
            staleServed: counters.staleServed.count)
    }

    /// What `statistics()` reports.
    public struct Statistics: Sendable {
        public var entries, freshEntries, notFoundEntries, hits, misses, upstreamCalls, upstreamRateLimited, staleServed: Int
    }

    /// Each provider's state for the status screen, GBIF last.
    public func providerStatuses() -> [ProviderStatus] {
        var statuses = providers.map { ProviderStatus(source: $0.source, name: $0.name, requester: $0.requester) }
        statuses.append(ProviderStatus(source: .gbif, name: "GBIF", requester: gbif.requester))
        for index in statuses.indices where statuses[index].source == .perenual && perenual.isConfigured {
            statuses[index].dailyBudgetLeft = perenual.budgetLeft
        }
        return statuses
    }

    // MARK: Names

    /// The species `text` names: a common name the catalog knows; else the scientific name, matched by GBIF to
    /// the accepted species unless the catalog knows it as written.
    private func resolve(_ text: String, answerBy: ContinuousClock.Instant) async throws -> NameResolution {
        if let care = catalog.care(forCommonName: text), let name = ScientificName(care.scientificName) {
            return NameResolution(name: name, note: "“\(text.trimmingCharacters(in: .whitespaces))” is \(name.canonical) (PlantGuide's catalog).")
        }
        guard let written = ScientificName(text) else {
            throw CareDataError.invalidArgument("scientific_name", .invalidFormat, "'\(text)' is not a scientific name")
        }
        guard gbif.isConfigured, catalog.care(for: written.canonical) == nil else { return NameResolution(name: written) }
        let asked = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let lookup = try await cached(key: "gbif:" + asked.lowercased(), answerBy: answerBy) { [gbif, configuration] in
            let (match, _) = try await gbif.match(asked)
            guard let accepted = match.acceptedSpecies.flatMap(ScientificName.init) else { return (nil, nil, nil) }
            let care = CareInfo(scientificName: accepted.canonical, family: match.family ?? "", genus: match.genus ?? accepted.genus,
                                source: .gbif, fetchedAt: configuration.now(), fieldSources: [.family: .gbif, .genus: .gbif])
            return (care, nil, nil)
        }
        switch lookup {
        case .cached(let care?, _), .fetched(let care?), .stale(let care, _):
            guard let accepted = ScientificName(care.scientificName) else { return NameResolution(name: written, lookup: lookup) }
            let note = accepted == written ? nil : "GBIF accepts “\(written.canonical)” as \(accepted.canonical)."
            return NameResolution(name: accepted, gbif: care, note: note, lookup: lookup)
        case .cached(nil, _), .fetched(nil), .failed:
            return NameResolution(name: written, lookup: lookup)
        }
    }

    // MARK: Upstream

    private func lookup(_ provider: any CareDataProvider, _ name: ScientificName, answerBy: ContinuousClock.Instant) async throws -> Lookup {
        try await cached(key: provider.cacheKey(name), answerBy: answerBy) { [configuration] in
            let record = try await provider.record(of: name, fetchedAt: configuration.now())
            return (record?.care, record?.raw, record?.trefleID)
        }
    }

    /// The fresh cache entry of `key`, else one `fetch` (shared by concurrent callers) whose answer is stored,
    /// else, when it fails or has not ended by `answerBy` (nil: no limit), the expired entry. A fetch that ends
    /// after `answerBy` still stores its answer.
    private func cached(key: String, answerBy: ContinuousClock.Instant? = nil,
                        fetch: @escaping @Sendable () async throws -> (CareInfo?, raw: Data?, trefleID: Int?)) async throws -> Lookup {
        let entry = try await cache.entry(key: key)
        if let entry, isFresh(entry) {
            counters.hits.increment()
            return .cached(entry.care, entry.fetchedAt)
        }
        counters.misses.increment()
        let task = shared(key) { [self] in
            // A request that missed the cache just before another's fetch stored its answer finds it here.
            if let entry = try? await cache.entry(key: key), isFresh(entry) { return .found(entry.care) }
            do {
                let (care, raw, trefleID) = try await fetch()
                try await store(care, key: key, raw: raw, trefleID: trefleID)
                return .found(care)
            } catch {
                return .failed(Self.providerError(error, "the provider"))
            }
        }
        let started = ContinuousClock.now
        let outcome: Outcome?
        if let answerBy {
            outcome = await Self.value(of: task, by: answerBy)
        } else {
            outcome = await task.value
        }
        switch outcome {
        case .found(let care)?:
            return .fetched(care)
        case .failed(let error)?:
            guard let stale = entry?.care else { return .failed(error) }
            counters.staleServed.increment()
            return .stale(stale, error)
        case nil:
            let waited = started.duration(to: .now).formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow))
            let late = ProviderError.late("no answer within \(waited); its answer will fill the cache")
            guard let stale = entry?.care else { return .failed(late) }
            counters.staleServed.increment()
            return .stale(stale, late)
        }
    }

    /// The outcome of `task` if it ends by `deadline`, else nil (the task goes on).
    private static func value(of task: Task<Outcome, Never>, by deadline: ContinuousClock.Instant) async -> Outcome? {
        await withCheckedContinuation { continuation in
            let first = FirstResult<Outcome?>(continuation)
            let timer = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                first.resume(nil)
            }
            Task {
                first.resume(await task.value)
                timer.cancel()
            }
        }
    }

    /// Runs `work` once per key at a time: concurrent callers share its task, which outlives any one of them.
    private func shared(_ key: String, _ work: @escaping @Sendable () async -> Outcome) -> Task<Outcome, Never> {
        inflight.withLock { tasks in
            if let running = tasks[key] { return running }
            let task = Task { [self] in
                let outcome = await work()
                inflight.withLock { tasks in tasks[key] = nil }
                return outcome
            }
            tasks[key] = task
            return task
        }
    }

    private func store(_ care: CareInfo?, key: String, raw: Data?, trefleID: Int?) async throws {
        try await cache.store(.init(key: key, trefleID: trefleID, care: care, raw: raw, fetchedAt: care?.fetchedAt ?? configuration.now()))
    }

    private static func providerError(_ error: any Error, _ provider: String) -> ProviderError {
        error as? ProviderError ?? ProviderError(.badResponse, "\(provider)'s answer could not be read or cached", provider: provider)
    }

    // MARK: Answers

    /// A Trefle record with the fields it lacks from the catalog or the defaults.
    private func merged(trefle care: CareInfo, source: CareSource) -> CareInfo {
        var records: [CareSource: CareInfo] = [.trefle: care]
        if let entry = catalog.care(for: care.scientificName) { records[.catalog] = entry }
        var merged = CareMerge.merge(name: care.scientificName, records: records, standIn: nil, now: configuration.now()) ?? care
        merged.source = source
        return merged
    }

    /// The answer's source: stale when any record was; else the first provider fetched for it; else the cache when
    /// a cached provider record was used; else the catalog when it gave a field; else default.
    static func overallSource(_ lookups: [CareSource: Lookup], catalogUsed: Bool) -> CareSource {
        var cached = false
        var fetched: CareSource?
        for source in [CareSource.trefle, .openPlantbook, .perenual] {
            switch lookups[source] {
            case .stale?: return .staleCache
            case .fetched(_?)?: fetched = fetched ?? source
            case .cached(_?, _)?: cached = true
            default: break
            }
        }
        return fetched ?? (cached ? .cache : catalogUsed ? .catalog : .default)
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

/// A provider's state for the status screen.
public struct ProviderStatus: Sendable {
    public var source: CareSource
    public var name: String
    public var reachability: ProviderReachability
    /// HTTP requests sent since the service started (retries included), and how many got 429.
    public var requests: Int
    public var rateLimited: Int
    /// Perenual's requests left today; nil for the others.
    public var dailyBudgetLeft: Int?

    init(source: CareSource, name: String, requester: UpstreamRequester) {
        self.source = source
        self.name = name
        reachability = requester.reachability.current
        requests = requester.requests.count
        rateLimited = requester.rateLimited.count
    }
}
