import Foundation
import PlantGuideHTTP
import Logging
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPCCore
import PlantGuideStorage

/// The RPC methods of plantguide-caredata (see `Protos/plantguide/caredata/v1/caredata.proto`).
public struct CareDataRPCService: RPCService {
    public let provider: CareInfoProvider
    private let database: PostgresStorage?
    private let logger: Logger

    public var isReady: Bool { database?.isReachable ?? true }

    /// Uses `cache` (nil: opens the SQLite cache in the data folder) and loads the bundled catalog.
    /// - Parameter database: the PostgreSQL store under `cache`, when it is one: the service is ready only while
    ///   it answers.
    /// - Throws: when the database cannot be opened or the catalog is malformed.
    public init(configuration: CareDataConfiguration, cache: CareCache? = nil, database: PostgresStorage? = nil,
                http: any HTTPClient = CurlHTTPClient(), logger: Logger) throws {
        provider = try CareInfoProvider(configuration: configuration, cache: cache, http: http, catalog: try CareCatalog.bundled())
        self.database = database
        self.logger = logger
        let live = [("Trefle", provider.trefle.isConfigured), ("Open Plantbook", provider.openPlantbook.isConfigured),
                    ("Perenual", provider.perenual.isConfigured)].filter(\.1).map(\.0)
        if live.isEmpty {
            logger.notice("no care-data provider configured: answers come from the cache and the offline catalog")
        } else {
            logger.info("care-data providers", metadata: ["providers": "\(live.joined(separator: ", "))",
                                                          "gbif": "\(provider.gbif.isConfigured ? "on" : "off")"])
        }
    }

    /// Its handlers only await (the cache's database, the providers' HTTP, on
    /// threads of its own). So they run where the calls arrive, on the RPC I/O thread.
    public var handlerExecution: RPCHandlerExecution? { .ioThread }

    public func registerMethods(with router: inout RPCRouter) {
        let provider = self.provider
        typealias Methods = Plantguide_Caredata_V1_CareDataService

        router.register(Methods.getCareInfo) { request, context in
            let care: CareInfo
            do {
                switch request.key {
                case .scientificName(let name)?:
                    care = try await provider.careInfo(scientificName: name, deadline: context.deadline)
                case .trefleID(let id)?:
                    guard id > 0 else { throw RPCError.invalidArgument("trefle_id", .outOfRange, "trefle_id must be positive") }
                    care = try await provider.careInfo(trefleID: Int(id))
                case nil:
                    throw RPCError.invalidArgument("key", .required, "give scientific_name or trefle_id")
                }
            } catch let error as CareDataError where error.code == .notFound && request.allowGeneric {
                care = CareInfo.generic(scientificName: ScientificName(request.scientificName)?.canonical ?? "", why: error.message)
            }
            return .with { $0.careInfo = Plantguide_Caredata_V1_CareInfo(care) }
        }
        router.register(Methods.searchSpecies) { request, _ in
            try await SpeciesSearch(provider: provider).run(request)
        }
        router.register(Methods.getStatus) { _, _ in
            let trefle = provider.trefle
            let reachability = trefle.reachability
            let cache = try await Self.cacheStats(provider)
            return .with {
                $0.trefle = Self.wire(reachability, requests: trefle.requestCount, rateLimited: trefle.rateLimitedCount)
                $0.cache = cache
                $0.catalogSpecies = UInt32(provider.catalog.species.count)
                $0.providers = provider.providerStatuses().map { status in
                    .with {
                        $0.source = Wire.source[status.source] ?? .unspecified
                        $0.name = status.name
                        $0.status = Self.wire(status.reachability, requests: status.requests, rateLimited: status.rateLimited)
                        if let left = status.dailyBudgetLeft {
                            $0.dailyBudget = .with {
                                $0.limit = UInt32(provider.perenual.configuration.dailyBudget)
                                $0.left = UInt32(left)
                            }
                        }
                    }
                }
            }
        }
        router.register(Methods.getCacheStats) { _, _ in
            try await Self.cacheStats(provider)
        }
        router.register(Methods.invalidateCacheEntry) { request, _ in
            var name: String?
            var id: Int?
            switch request.key {
            case .scientificName(let value)?: name = value
            case .trefleID(let value)?: id = Int(value)
            case nil: break
            }
            let removed = try await provider.invalidate(scientificName: name, trefleID: id)
            return .with { $0.removed = removed }
        }
    }

    private static func cacheStats(_ provider: CareInfoProvider) async throws -> Plantguide_Caredata_V1_GetCacheStatsResponse {
        let stats = try await provider.statistics()
        return .with {
            $0.entries = UInt64(stats.entries)
            $0.freshEntries = UInt64(stats.freshEntries)
            $0.notFoundEntries = UInt64(stats.notFoundEntries)
            $0.hits = UInt64(stats.hits)
            $0.misses = UInt64(stats.misses)
            $0.upstreamCalls = UInt64(stats.upstreamCalls)
            $0.upstreamRateLimited = UInt64(stats.upstreamRateLimited)
            $0.staleServed = UInt64(stats.staleServed)
        }
    }

    private static func wire(_ reachability: ProviderReachability, requests: Int, rateLimited: Int) -> Plantguide_Caredata_V1_TrefleStatus {
        .with {
            $0.reachability = wire(reachability.state)
            if let time = reachability.lastSuccessAt { $0.lastSuccessAt = .init(date: time) }
            if let time = reachability.lastFailureAt { $0.lastFailureAt = .init(date: time) }
            $0.lastError = reachability.lastError
            $0.requests = UInt64(requests)
            $0.rateLimited = UInt64(rateLimited)
        }
    }

    private static func wire(_ state: ProviderReachability.State) -> Plantguide_Caredata_V1_TrefleStatus.Reachability {
        switch state {
        case .notConfigured: .notConfigured
        case .unknown: .unknown
        case .reachable: .reachable
        case .unreachable: .unreachable
        case .rateLimited: .rateLimited
        case .unauthorized: .unauthorized
        }
    }

}
