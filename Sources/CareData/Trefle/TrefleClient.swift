import Foundation
import PlantGuideCore
import PlantGuideHTTP

/// A client of the Trefle API v1 (https://trefle.io): species search, species and plants by id or slug.
///
/// Requests carry the token as `Authorization: Bearer` and go through an ``UpstreamRequester`` (rate limit,
/// circuit breaker, one retry). Errors are ``TrefleError``s with the message of Trefle's error body (`message`,
/// or `messages` on 401).
public final class TrefleClient: Sendable {
    public let configuration: TrefleConfiguration
    let requester: UpstreamRequester

    public init(configuration: TrefleConfiguration, http: any HTTPClient = CurlHTTPClient()) {
        self.configuration = configuration
        requester = UpstreamRequester(
            provider: "Trefle", metric: "trefle", limits: configuration.limits, configured: !(configuration.token ?? "").isEmpty,
            http: http, errorText: { (try? JSONDecoder().decode(TrefleErrorBody.self, from: $0.body))?.text })
    }

    /// Whether Trefle answered the last request, and the last failure.
    public var reachability: TrefleReachability { requester.reachability.current }

    /// True when a token is configured.
    public var isConfigured: Bool { !(configuration.token ?? "").isEmpty }

    /// HTTP requests sent to Trefle so far (retries included).
    public var requestCount: Int { requester.requests.count }
    /// 429 answers received so far.
    public var rateLimitedCount: Int { requester.rateLimited.count }

    /// `GET /api/v1/species/{id or slug}`.
    public func species(_ idOrSlug: String) async throws -> TrefleSpecies {
        try await speciesRecord(idOrSlug).species
    }

    /// `GET /api/v1/species/{id or slug}`, with the response body as received (for the cache's raw copy).
    public func speciesRecord(_ idOrSlug: String) async throws -> (species: TrefleSpecies, raw: Data) {
        let (envelope, raw) = try await get(["api", "v1", "species", idOrSlug], as: TrefleEnvelope<TrefleSpecies>.self)
        return (envelope.data, raw)
    }

    /// `GET /api/v1/plants/{id or slug}`; its care data is in `mainSpecies`.
    public func plant(_ idOrSlug: String) async throws -> TreflePlant {
        try await get(["api", "v1", "plants", idOrSlug], as: TrefleEnvelope<TreflePlant>.self).0.data
    }

    /// `GET /api/v1/species/search?q=…&page=…` (30 results a page).
    public func searchSpecies(_ query: String, page: Int = 1) async throws -> TreflePage<TrefleSpeciesSummary> {
        try await get(["api", "v1", "species", "search"], query: ["q": query, "page": String(page)],
                      as: TreflePage<TrefleSpeciesSummary>.self).0
    }

    private func get<Body: Decodable>(_ path: [String], query: [String: String] = [:], as type: Body.Type) async throws -> (Body, Data) {
        guard let token = configuration.token, !token.isEmpty else {
            throw TrefleError(.notConfigured, "no Trefle token is configured (PLANTGUIDE_TREFLE_TOKEN)")
        }
        let url = UpstreamRequester.url(configuration.baseURL, path, query: query)
        let response = try await requester.send(HTTPRequest(url: url, headers: ["Authorization": "Bearer \(token)", "Accept": "application/json"]))
        return (try requester.decode(type, from: response, of: url, decoder: .trefle), response.body)
    }

    /// How long a 429 asks us to wait: `Retry-After` seconds, else `RateLimit-Reset` (epoch seconds), else 60 s.
    static func retryDelay(_ headers: [String: String], now: Date) -> Duration {
        UpstreamRequester.retryDelay(headers, now: now)
    }
}
