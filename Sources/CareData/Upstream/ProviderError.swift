/// Why a request to a care-data provider (Trefle, Open Plantbook, Perenual, GBIF) failed.
public struct ProviderError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// No credentials configured.
        case notConfigured
        /// 401/403: the credentials were refused.
        case unauthorized
        /// 404: no such species or plant.
        case notFound
        /// 429, our own limiter would wait too long, or the daily budget is spent.
        case rateLimited
        /// 5xx or unreachable after the retry, or the circuit breaker is open.
        case unavailable
        /// No answer within the time-out, after the retry.
        case timedOut
        /// A body that does not decode, or an unexpected status.
        case badResponse
    }

    public var code: Code
    public var message: String
    /// For `.rateLimited`: when to try again.
    public var retryAfter: Duration?
    /// The provider's name, for messages: "Open Plantbook".
    public var provider: String

    public init(_ code: Code, _ message: String, retryAfter: Duration? = nil, provider: String = "Trefle") {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.provider = provider
    }

    public var description: String { "\(provider): \(message)" }

    /// Set when the provider was still working when the lookup had to answer (its fetch goes on and fills the cache).
    public var isLate = false

    /// A provider that has not answered by the time the lookup answers.
    static func late(_ message: String) -> ProviderError {
        var error = ProviderError(.timedOut, message, provider: "the provider")
        error.isLate = true
        return error
    }
}

/// How a provider client paces and bounds its requests.
public struct UpstreamLimits: Sendable {
    /// Per request. Default 15 s.
    public var timeout: Duration = .seconds(15)
    /// Client-side limit. Default 60 a minute.
    public var requestsPerMinute: Int = 60
    /// Pause before the one retry of a 5xx or a time-out. Default 500 ms.
    public var retryBackoff: Duration = .milliseconds(500)
    /// Longest a request waits for the rate limit (ours, or the server's Retry-After) before failing as
    /// rate-limited. Default 5 s.
    public var maxRateLimitWait: Duration = .seconds(5)
    /// Failures in a row (down, time-outs, nonsense) after which the provider is not asked for `breakerCooldown`.
    public var breakerThreshold = 5
    /// How long an open circuit breaker fails requests at once. Default 30 s.
    public var breakerCooldown: Duration = .seconds(30)
    /// The largest answer read; a larger one is refused before it is parsed or cached. Default 1 MiB: the largest
    /// recorded answer of any provider (Trefle's species record of Sorbus aucuparia) is 51 KB.
    public var maxBodyBytes = 1 << 20

    public init(timeout: Duration = .seconds(15), requestsPerMinute: Int = 60, retryBackoff: Duration = .milliseconds(500),
                maxRateLimitWait: Duration = .seconds(5)) {
        self.timeout = timeout
        self.requestsPerMinute = requestsPerMinute
        self.retryBackoff = retryBackoff
        self.maxRateLimitWait = maxRateLimitWait
    }
}
