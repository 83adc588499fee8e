import Foundation
import PlantGuideCore
import PlantGuideHTTP

/// How every provider client sends its requests: through a client-side rate limiter and a circuit breaker, with
/// a time-out, retried once (after a short back-off) on 5xx and time-outs. A 429 blocks the limiter until the
/// provider's `Retry-After` / `RateLimit-Reset` (60 s when it gives neither) and is retried once if that is soon
/// enough. Statuses become ``ProviderError``s carrying the message of the provider's error body.
///
/// Each request's time-out is cut to what is left of its caller's deadline (``RequestDeadline``), and a retry is
/// not sent when no time is left for it. A body over `limits.maxBodyBytes` is refused before it is read.
final class UpstreamRequester: Sendable {
    /// The provider's name in messages: "Open Plantbook".
    let provider: String
    let limits: UpstreamLimits
    private let http: any HTTPClient
    private let limiter: RateLimiter
    private let breaker: CircuitBreaker
    private let errorText: @Sendable (HTTPResponse) -> String?
    let requests: CountingMetric
    let rateLimited: CountingMetric
    let reachability: ProviderReachabilityRecorder

    /// Called before every request is sent, retries included: Perenual spends its daily budget there.
    private let beforeSending: @Sendable () throws -> Void

    /// - Parameters:
    ///   - metric: the label part of the exported counters, e.g. "trefle" for plantguide_caredata_trefle_requests_total.
    ///   - errorText: the message in an error body, when the provider sends one.
    ///   - beforeSending: called before each request is sent; what it throws fails the request unsent.
    init(provider: String, metric: String, limits: UpstreamLimits, configured: Bool, http: any HTTPClient,
         errorText: @escaping @Sendable (HTTPResponse) -> String? = UpstreamRequester.commonErrorText,
         beforeSending: @escaping @Sendable () throws -> Void = {}) {
        self.beforeSending = beforeSending
        self.provider = provider
        self.limits = limits
        self.http = http
        self.errorText = errorText
        limiter = RateLimiter(requestsPerMinute: limits.requestsPerMinute)
        breaker = CircuitBreaker(threshold: limits.breakerThreshold, cooldown: limits.breakerCooldown)
        requests = CountingMetric("plantguide_caredata_\(metric)_requests_total")
        rateLimited = CountingMetric("plantguide_caredata_\(metric)_rate_limited_total")
        reachability = ProviderReachabilityRecorder(configured: configured)
    }

    /// Sends `request` and returns a 2xx answer.
    /// - Throws: ``ProviderError`` for every other outcome.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        do {
            let response = try await attempt(request)
            reachability.answered()
            breaker.succeeded()
            return response
        } catch let error as ProviderError {
            reachability.failed(error)
            switch error.code {
            case .unavailable, .timedOut, .badResponse: breaker.failed()
            case .notFound, .unauthorized, .rateLimited: breaker.succeeded()
            case .notConfigured: break
            }
            throw error
        }
    }

    /// The error `code` of this provider, with `message`.
    func error(_ code: ProviderError.Code, _ message: String, retryAfter: Duration? = nil) -> ProviderError {
        ProviderError(code, message, retryAfter: retryAfter, provider: provider)
    }

    private func attempt(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let wait = breaker.openFor() {
            let seconds = wait.formatted(.units(allowed: [.seconds]))
            throw error(.unavailable, "not asked after \(limits.breakerThreshold) failures in a row; next try in \(seconds)")
        }
        let path = request.url.path
        var request = request
        request.maxResponseBytes = limits.maxBodyBytes
        var retried = false
        while true {
            try await limiter.acquire(maxWait: limits.maxRateLimitWait, provider: provider)
            let timeout = try timeLeft()
            try beforeSending()
            requests.increment()
            let response: HTTPResponse
            do {
                response = try await http.send(request, timeout: timeout)
            } catch let failure as HTTPClientError {
                if failure.code == .tooLarge {
                    throw error(.badResponse, "\(provider)'s answer for \(path) is over \(limits.maxBodyBytes) bytes; not read")
                }
                if !retried && canRetry() {
                    retried = true
                    try await Task.sleep(for: limits.retryBackoff)
                    continue
                }
                throw error(failure.code == .timedOut ? .timedOut : .unavailable, failure.message)
            }
            switch response.status {
            case 200..<300:
                return response
            case 401, 403:
                throw error(.unauthorized, errorText(response) ?? "the credentials were refused (\(response.status))")
            case 404:
                throw error(.notFound, errorText(response) ?? "\(path) not found")
            case 429:
                rateLimited.increment()
                let wait = Self.retryDelay(response.headers, now: Date())
                await limiter.block(for: wait)
                if !retried && wait <= limits.maxRateLimitWait && wait < (RequestDeadline.timeLeft ?? .seconds(86_400)) {
                    retried = true
                    continue
                }
                throw error(.rateLimited, errorText(response) ?? "too many requests", retryAfter: wait)
            case 500...:
                if !retried && canRetry() {
                    retried = true
                    try await Task.sleep(for: limits.retryBackoff)
                    continue
                }
                throw error(.unavailable, "\(provider) answered \(response.status)")
            default:
                throw error(.badResponse, "unexpected status \(response.status) for \(path)")
            }
        }
    }

    /// The time-out of the next request: the provider's, cut to what is left of the caller's deadline.
    /// - Throws: ``ProviderError/Code/timedOut`` when too little is left to send one.
    private func timeLeft() throws -> Duration {
        guard let left = RequestDeadline.timeLeft else { return limits.timeout }
        guard left >= RequestDeadline.shortestRequest else {
            throw error(.timedOut, "not asked: the caller's deadline leaves no time for a request")
        }
        return min(limits.timeout, left)
    }

    /// Whether the caller's deadline leaves room for a retry after the back-off.
    private func canRetry() -> Bool {
        guard let left = RequestDeadline.timeLeft else { return true }
        return left >= limits.retryBackoff + RequestDeadline.shortestRequest
    }

    /// Decodes a 2xx body as `Body`.
    /// - Throws: ``ProviderError/Code/badResponse`` saying what did not fit.
    func decode<Body: Decodable>(_: Body.Type, from response: HTTPResponse, of url: URL,
                                 decoder: JSONDecoder = JSONDecoder()) throws -> Body {
        do {
            return try decoder.decode(Body.self, from: response.body)
        } catch {
            throw unreadable("cannot read \(provider)'s answer for \(url.path): \(DecodingProblem.describe(error))")
        }
    }

    /// A 2xx answer that cannot be read, recorded as the failure it is (the provider is answering nonsense).
    func unreadable(_ message: String) -> ProviderError {
        let failure = error(.badResponse, message)
        reachability.failed(failure)
        breaker.failed()
        return failure
    }

    /// How long a 429 asks us to wait: `Retry-After` seconds, else `RateLimit-Reset` (epoch seconds), else 60 s.
    static func retryDelay(_ headers: [String: String], now: Date) -> Duration {
        if let seconds = headers["retry-after"].flatMap(Double.init), seconds >= 0 {
            return .milliseconds(Int64(seconds * 1_000))
        }
        if let reset = headers["ratelimit-reset"].flatMap(Double.init) {
            return .milliseconds(Int64(max(0, reset - now.timeIntervalSince1970) * 1_000))
        }
        return .seconds(60)
    }

    /// The text of an error body's `message`, `detail` or `error` string, as most JSON APIs send one.
    @Sendable static func commonErrorText(_ response: HTTPResponse) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] else { return nil }
        return ["message", "detail", "error"].lazy.compactMap { object[$0] as? String }.first { !$0.isEmpty }
    }

    /// `base` with `path` appended (each part percent-encoded; a trailing slash for APIs that want one) and
    /// `query` (sorted by name, for stable URLs).
    static func url(_ base: URL, _ path: [String], query: [String: String] = [:], trailingSlash: Bool = false) -> URL {
        var url = base
        for part in path { url.appendPathComponent(part) }
        guard !query.isEmpty || trailingSlash, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        if trailingSlash && !components.percentEncodedPath.hasSuffix("/") { components.percentEncodedPath += "/" }
        if !query.isEmpty {
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        return components.url ?? url
    }
}
