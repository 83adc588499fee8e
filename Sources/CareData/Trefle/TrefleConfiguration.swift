import Foundation

/// How the Trefle client reaches Trefle. The executable fills it from flags and PLANTGUIDE_TREFLE_* variables.
public struct TrefleConfiguration: Sendable {
    /// Default https://trefle.io; tests point it at a local fake.
    public var baseURL: URL
    /// The API token; nil means Trefle is not configured and every lookup falls back to the catalog.
    public var token: String?
    /// Per request. Default 15 s.
    public var timeout: Duration = .seconds(15)
    /// Client-side limit. Default 60 a minute: Trefle's docs say 120, its current server enforces 60.
    public var requestsPerMinute: Int = 60
    /// Pause before the one retry of a 5xx or a time-out. Default 500 ms.
    public var retryBackoff: Duration = .milliseconds(500)
    /// Longest a request waits for the rate limit (ours, or the server's Retry-After) before failing as
    /// rate-limited. Default 5 s.
    public var maxRateLimitWait: Duration = .seconds(5)

    public init(baseURL: URL = URL(string: "https://trefle.io")!, token: String?) {
        self.baseURL = baseURL
        self.token = token
    }
}

extension TrefleConfiguration {
    /// The request limits the configuration sets.
    var limits: UpstreamLimits {
        UpstreamLimits(timeout: timeout, requestsPerMinute: requestsPerMinute, retryBackoff: retryBackoff, maxRateLimitWait: maxRateLimitWait)
    }
}

/// Why a Trefle request failed.
public typealias TrefleError = ProviderError
