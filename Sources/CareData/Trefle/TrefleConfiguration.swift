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

/// Why a Trefle request failed.
public struct TrefleError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// No token configured.
        case notConfigured
        /// 401/403: the token is wrong.
        case unauthorized
        /// 404: no such species or plant.
        case notFound
        /// 429, or our own limiter would wait too long.
        case rateLimited
        /// 5xx or unreachable, after the retry.
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

    public init(_ code: Code, _ message: String, retryAfter: Duration? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { "Trefle: \(message)" }
}
