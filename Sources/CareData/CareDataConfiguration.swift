import PlantGuideRPCCore
import Foundation

/// Configuration of the care-data service. The executable builds it from flags and PLANTGUIDE_* variables.
public struct CareDataConfiguration: Sendable {
    /// Holds `caredata.sqlite`, the cache.
    public var dataDirectory: URL
    public var trefle: TrefleConfiguration
    /// Off unless credentials are set.
    public var openPlantbook = OpenPlantbookConfiguration(clientID: nil, clientSecret: nil)
    /// Off unless a key is set.
    public var perenual = PerenualConfiguration(key: nil)
    /// Off unless a URL is set (the service sets https://api.gbif.org unless told otherwise).
    public var gbif = GBIFConfiguration(baseURL: nil)
    /// How long a fetched species stays fresh. Default 7 days.
    public var cacheTTL: Duration = .seconds(7 * 86_400)
    /// How long a provider's "no such species" answer is trusted. Default 1 day.
    public var notFoundTTL: Duration = .seconds(86_400)
    /// The longest a lookup waits for providers before it answers from what has arrived (each late provider named
    /// in the notes; its answer, when it comes, fills the cache for the next lookup). A caller's earlier deadline
    /// cuts it further. Default 4 s, so that a cold lookup with a provider hanging answers within 5 s.
    public var lookupBudget: Duration = .seconds(4)
    /// The current time (tests move it).
    public var now: @Sendable () -> Date = { Date() }

    public init(dataDirectory: URL, trefle: TrefleConfiguration) {
        self.dataDirectory = dataDirectory
        self.trefle = trefle
    }

    /// The cache file.
    public var databasePath: String { dataDirectory.appendingPathComponent("caredata.sqlite").path }
}

/// A care-data request that cannot be answered. Its code is the status the caller sees, so it is an ``RPCError``
/// under the domain's name.
public typealias CareDataError = RPCError
