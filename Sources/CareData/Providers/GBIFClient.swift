import Foundation
import PlantGuideHTTP

/// Where the GBIF client asks (https://api.gbif.org, no key needed).
public struct GBIFConfiguration: Sendable {
    /// Nil turns name matching off.
    public var baseURL: URL?
    public var limits = UpstreamLimits(timeout: .seconds(10), requestsPerMinute: 60)

    public init(baseURL: URL? = URL(string: "https://api.gbif.org")!) {
        self.baseURL = baseURL
    }

    public var isConfigured: Bool { baseURL != nil }
}

/// A client of GBIF's backbone name matching (`GET /v1/species/match`): a name as someone wrote it, author,
/// synonym and all, to the accepted species.
public final class GBIFClient: Sendable {
    public let configuration: GBIFConfiguration
    let requester: UpstreamRequester

    public init(configuration: GBIFConfiguration, http: any HTTPClient = CurlHTTPClient()) {
        self.configuration = configuration
        requester = UpstreamRequester(provider: "GBIF", metric: "gbif", limits: configuration.limits,
                                      configured: configuration.isConfigured, http: http)
    }

    public var isConfigured: Bool { configuration.isConfigured }

    /// GBIF's best match of `name` among plants, with the body as received.
    public func match(_ name: String) async throws -> (match: GBIFMatch, raw: Data) {
        guard let base = configuration.baseURL else { throw requester.error(.notConfigured, "GBIF name matching is off") }
        let url = UpstreamRequester.url(base, ["v1", "species", "match"], query: ["name": name, "kingdom": "Plantae"])
        let response = try await requester.send(HTTPRequest(url: url, headers: ["Accept": "application/json"]))
        return (try requester.decode(GBIFMatch.self, from: response, of: url), response.body)
    }
}

/// The fields of a `species/match` answer PlantGuide reads.
public struct GBIFMatch: Decodable, Sendable, Equatable {
    /// EXACT, FUZZY, HIGHERRANK or NONE.
    public var matchType: String
    public var confidence: Int?
    public var rank: String?
    /// ACCEPTED, SYNONYM, DOUBTFUL, …
    public var status: String?
    public var kingdom: String?
    public var family: String?
    public var genus: String?
    /// The accepted species the name belongs to (for a synonym too), without author.
    public var species: String?

    /// The accepted species, when the match is one PlantGuide trusts: a species or lower rank, matched exactly or
    /// fuzzily with confidence of at least 90, in the plant kingdom.
    public var acceptedSpecies: String? {
        guard matchType == "EXACT" || (matchType == "FUZZY" && (confidence ?? 0) >= 90),
              ["SPECIES", "SUBSPECIES", "VARIETY", "FORM"].contains(rank ?? ""), kingdom == "Plantae" else { return nil }
        return species
    }
}
