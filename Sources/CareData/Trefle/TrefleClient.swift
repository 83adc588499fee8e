import Foundation
import PlantGuideCore
import PlantGuideHTTP

/// A client of the Trefle API v1 (https://trefle.io): species search, species and plants by id or slug.
///
/// Requests carry the token as `Authorization: Bearer`, go through a client-side rate limiter, time out after
/// `timeout`, and are retried once (after a short back-off) on 5xx and time-outs. A 429 blocks the limiter until
/// Trefle's `Retry-After` / `RateLimit-Reset` and is retried once if that is soon enough. Errors are
/// ``TrefleError``s with the message of Trefle's error body (`message`, or `messages` on 401).
public final class TrefleClient: Sendable {
    public let configuration: TrefleConfiguration
    private let http: any HTTPClient
    private let limiter: RateLimiter
    private let counters = Counters()
    private let reachabilityRecorder: TrefleReachabilityRecorder

    public init(configuration: TrefleConfiguration, http: any HTTPClient = CurlHTTPClient()) {
        self.configuration = configuration
        self.http = http
        limiter = RateLimiter(requestsPerMinute: configuration.requestsPerMinute)
        reachabilityRecorder = TrefleReachabilityRecorder(configured: !(configuration.token ?? "").isEmpty)
    }

    /// Whether Trefle answered the last request, and the last failure.
    public var reachability: TrefleReachability { reachabilityRecorder.current }

    /// True when a token is configured.
    public var isConfigured: Bool { !(configuration.token ?? "").isEmpty }

    /// HTTP requests sent to Trefle so far (retries included).
    public var requestCount: Int { counters.requests.count }
    /// 429 answers received so far.
    public var rateLimitedCount: Int { counters.rateLimited.count }

    /// `GET /api/v1/species/{id or slug}`.
    public func species(_ idOrSlug: String) async throws -> TrefleSpecies {
        try await speciesRecord(idOrSlug).species
    }

    /// `GET /api/v1/species/{id or slug}`, with the response body as received (for the cache's raw copy).
    public func speciesRecord(_ idOrSlug: String) async throws -> (species: TrefleSpecies, raw: Data) {
        let (envelope, raw) = try await getWithBody(["api", "v1", "species", idOrSlug], as: TrefleEnvelope<TrefleSpecies>.self)
        return (envelope.data, raw)
    }

    /// `GET /api/v1/plants/{id or slug}`; its care data is in `mainSpecies`.
    public func plant(_ idOrSlug: String) async throws -> TreflePlant {
        try await get(["api", "v1", "plants", idOrSlug], as: TrefleEnvelope<TreflePlant>.self).data
    }

    /// `GET /api/v1/species/search?q=…&page=…` (30 results a page).
    public func searchSpecies(_ query: String, page: Int = 1) async throws -> TreflePage<TrefleSpeciesSummary> {
        try await get(["api", "v1", "species", "search"], query: ["q": query, "page": String(page)],
                      as: TreflePage<TrefleSpeciesSummary>.self)
    }

    private func get<Body: Decodable>(_ path: [String], query: [String: String] = [:], as type: Body.Type) async throws -> Body {
        try await getWithBody(path, query: query, as: type).0
    }

    private func getWithBody<Body: Decodable>(
        _ path: [String], query: [String: String] = [:], as type: Body.Type
    ) async throws -> (Body, Data) {
        do {
            let answer = try await attempt(path, query: query, as: type)
            reachabilityRecorder.answered()
            return answer
        } catch let error as TrefleError {
            reachabilityRecorder.failed(error)
            throw error
        }
    }

    /// One request, retried once on a 5xx, a time-out or a short 429.
    private func attempt<Body: Decodable>(
        _ path: [String], query: [String: String], as _: Body.Type
    ) async throws -> (Body, Data) {
        guard let token = configuration.token, !token.isEmpty else {
            throw TrefleError(.notConfigured, "no Trefle token is configured (PLANTGUIDE_TREFLE_TOKEN)")
        }
        let url = makeURL(path, query: query)
        let headers = ["Authorization": "Bearer \(token)", "Accept": "application/json"]
        var retried = false
        while true {
            try await limiter.acquire(maxWait: configuration.maxRateLimitWait)
            counters.requests.increment()
            let response: HTTPResponse
            do {
                response = try await http.get(url, headers: headers, timeout: configuration.timeout)
            } catch let error as HTTPClientError {
                if !retried {
                    retried = true
                    try await Task.sleep(for: configuration.retryBackoff)
                    continue
                }
                throw TrefleError(error.code == .timedOut ? .timedOut : .unavailable, error.message)
            }
            switch response.status {
            case 200..<300:
                do {
                    return (try JSONDecoder.trefle.decode(Body.self, from: response.body), response.body)
                } catch {
                    throw TrefleError(.badResponse, "cannot read Trefle's answer for \(url.path): \(DecodingProblem.describe(error))")
                }
            case 401, 403:
                throw TrefleError(.unauthorized, errorText(response) ?? "the token was refused (\(response.status))")
            case 404:
                throw TrefleError(.notFound, errorText(response) ?? "\(url.path) not found")
            case 429:
                counters.rateLimited.increment()
                let wait = Self.retryDelay(response.headers, now: Date())
                await limiter.block(for: wait)
                if !retried && wait <= configuration.maxRateLimitWait {
                    retried = true
                    continue
                }
                throw TrefleError(.rateLimited, errorText(response) ?? "too many requests", retryAfter: wait)
            case 500...:
                if !retried {
                    retried = true
                    try await Task.sleep(for: configuration.retryBackoff)
                    continue
                }
                throw TrefleError(.unavailable, "Trefle answered \(response.status)")
            default:
                throw TrefleError(.badResponse, "unexpected status \(response.status) for \(url.path)")
            }
        }
    }

    private func makeURL(_ path: [String], query: [String: String]) -> URL {
        var url = configuration.baseURL
        for part in path { url.appendPathComponent(part) }
        guard !query.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return components.url ?? url
    }

    private func errorText(_ response: HTTPResponse) -> String? {
        (try? JSONDecoder().decode(TrefleErrorBody.self, from: response.body))?.text
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

    private struct Counters: Sendable {
        let requests = CountingMetric("plantguide_caredata_trefle_requests_total")
        let rateLimited = CountingMetric("plantguide_caredata_trefle_rate_limited_total")
    }
}

