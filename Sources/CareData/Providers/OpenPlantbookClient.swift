import Foundation
import PlantGuideHTTP
import Synchronization

/// Where and as whom the Open Plantbook client asks (https://open.plantbook.io, API v1).
public struct OpenPlantbookConfiguration: Sendable {
    public var baseURL: URL
    /// The client id and secret made in Open Plantbook's web UI; either missing means the provider is off.
    public var clientID: String?
    public var clientSecret: String?
    /// Open Plantbook has limited requests since 2026-03 without publishing a number: 60 a minute stays polite, and
    /// its 429s (with their Retry-After) are obeyed.
    public var limits = UpstreamLimits(requestsPerMinute: 60)
    /// How long before its expiry a token is replaced. Default 5 minutes.
    public var tokenRefreshMargin: Duration = .seconds(300)

    public init(baseURL: URL = URL(string: "https://open.plantbook.io")!, clientID: String?, clientSecret: String?) {
        self.baseURL = baseURL
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    public var isConfigured: Bool { !(clientID ?? "").isEmpty && !(clientSecret ?? "").isEmpty }
}

/// A client of Open Plantbook: the client credentials exchanged for a bearer token (valid 24 hours, replaced
/// before it expires, and at once when a request finds it refused), then `plant/search` and `plant/detail`.
public final class OpenPlantbookClient: Sendable {
    public let configuration: OpenPlantbookConfiguration
    let requester: UpstreamRequester
    private let token = Mutex<(value: String, expires: ContinuousClock.Instant)?>(nil)
    private let exchanges = Mutex<Task<String, any Error>?>(nil)

    public init(configuration: OpenPlantbookConfiguration, http: any HTTPClient = CurlHTTPClient()) {
        self.configuration = configuration
        requester = UpstreamRequester(provider: "Open Plantbook", metric: "openplantbook", limits: configuration.limits,
                                      configured: configuration.isConfigured, http: http)
    }

    public var isConfigured: Bool { configuration.isConfigured }

    /// `GET /api/v1/plant/search?alias=…`: plants whose name or alias contains `alias`.
    public func search(_ alias: String) async throws -> [OpenPlantbookSummary] {
        let url = UpstreamRequester.url(configuration.baseURL, ["api", "v1", "plant", "search"], query: ["alias": alias, "limit": "20"])
        return try await authorized(url, as: OpenPlantbookPage.self).0.results
    }

    /// `GET /api/v1/plant/detail/{pid}/?lang=…&include=care`, with the body as received.
    /// - Throws: ``ProviderError`` (`.notFound` for a pid it does not have).
    public func detail(pid: String, language: String = "en") async throws -> (plant: OpenPlantbookPlant, raw: Data) {
        let url = UpstreamRequester.url(configuration.baseURL, ["api", "v1", "plant", "detail", pid],
                                        query: ["lang": language, "include": "care"], trailingSlash: true)
        return try await authorized(url, as: OpenPlantbookPlant.self)
    }

    /// A GET with the bearer token; a 401 or 403 drops the token and tries once more with a new one.
    private func authorized<Body: Decodable>(_ url: URL, as type: Body.Type) async throws -> (Body, Data) {
        var renewed = false
        while true {
            let bearer = try await currentToken()
            do {
                let response = try await requester.send(HTTPRequest(url: url, headers: ["Authorization": "Bearer \(bearer)", "Accept": "application/json"]))
                return (try requester.decode(type, from: response, of: url), response.body)
            } catch let error as ProviderError where error.code == .unauthorized && !renewed {
                renewed = true
                token.withLock { if $0?.value == bearer { $0 = nil } }
            }
        }
    }

    /// The token in hand while it has more than the margin left; else one exchange, shared by concurrent callers.
    private func currentToken() async throws -> String {
        guard let clientID = configuration.clientID, let secret = configuration.clientSecret, isConfigured else {
            throw requester.error(.notConfigured, "no Open Plantbook credentials (PLANTGUIDE_OPENPLANTBOOK_CLIENT_ID and _SECRET)")
        }
        if let held = token.withLock({ $0 }), held.expires - configuration.tokenRefreshMargin > .now { return held.value }
        let exchange = exchanges.withLock { running in
            if let running { return running }
            let task = Task { try await self.exchange(clientID: clientID, secret: secret) }
            running = task
            return task
        }
        defer { exchanges.withLock { if $0 == exchange { $0 = nil } } }
        return try await exchange.value
    }

    /// `POST /api/v1/token/` with the client credentials grant.
    private func exchange(clientID: String, secret: String) async throws -> String {
        let url = UpstreamRequester.url(configuration.baseURL, ["api", "v1", "token"], trailingSlash: true)
        let form = [("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", secret)]
            .map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&")
        let response = try await requester.send(HTTPRequest(
            method: "POST", url: url, headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: Data(form.utf8)))
        let grant = try requester.decode(OpenPlantbookToken.self, from: response, of: url)
        let lifetime = Duration.seconds(max(60, grant.expiresIn ?? 86_400))
        token.withLock { $0 = (grant.accessToken, .now + lifetime) }
        return grant.accessToken
    }

    private static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// `POST /api/v1/token/`'s answer.
struct OpenPlantbookToken: Decodable {
    var accessToken: String
    var expiresIn: Int?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
    }
}

/// A page of `plant/search`.
struct OpenPlantbookPage: Decodable {
    var results: [OpenPlantbookSummary]
}

/// One plant in a search result.
public struct OpenPlantbookSummary: Decodable, Sendable, Equatable {
    /// Open Plantbook's id: the lower-cased scientific name, "acer rubrum".
    public var pid: String
    public var displayPid: String?
    public var alias: String?

    enum CodingKeys: String, CodingKey {
        case pid, alias
        case displayPid = "display_pid"
    }
}

/// `plant/detail`: measured ranges for a plant, and with `include=care` free-text advice.
///
/// Read field by field: a field of the wrong type is dropped and named in `unreadableFields`, and the rest of the
/// record is kept; a number sent as text ("35") is read as the number. Only `pid` is required.
public struct OpenPlantbookPlant: Decodable, Sendable, Equatable {
    public var pid: String
    public var displayPid: String?
    /// "Family, Genus" (often), or a word in another language ("boom").
    public var category: String?
    public var minTemp, maxTemp: Double?
    public var minEnvHumid, maxEnvHumid: Double?
    public var minLightLux, maxLightLux: Double?
    public var minSoilMoist, maxSoilMoist: Double?
    public var commonNames: [CommonName]?
    /// Free text with `include=care` (since 2026-05).
    public var watering, sunlight, soil, pruning, fertilization: String?
    /// The fields present but of a type that could not be read, with what was found: ["min_temp": "text that is not a number"].
    public var unreadableFields: [String: String] = [:]

    public struct CommonName: Decodable, Sendable, Equatable {
        public var name: String
        public var languageCode: String?

        enum CodingKeys: String, CodingKey {
            case name
            case languageCode = "language_code"
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case pid, category, watering, sunlight, soil, pruning, fertilization
        case displayPid = "display_pid"
        case minTemp = "min_temp", maxTemp = "max_temp"
        case minEnvHumid = "min_env_humid", maxEnvHumid = "max_env_humid"
        case minLightLux = "min_light_lux", maxLightLux = "max_light_lux"
        case minSoilMoist = "min_soil_moist", maxSoilMoist = "max_soil_moist"
        case commonNames = "common_names"
    }

    public init(pid: String) {
        self.pid = pid
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        pid = try fields.decode(String.self, forKey: .pid)
        var unreadable: [String: String] = [:]
        func number(_ key: CodingKeys) -> Double? {
            guard fields.contains(key), (try? fields.decodeNil(forKey: key)) == false else { return nil }
            if let value = try? fields.decode(Double.self, forKey: key) { return value }
            if let text = try? fields.decode(String.self, forKey: key) {
                if let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite { return value }
                unreadable[key.rawValue] = "text that is not a number"
            } else {
                unreadable[key.rawValue] = "a value that is not a number"
            }
            return nil
        }
        func text(_ key: CodingKeys) -> String? {
            guard fields.contains(key), (try? fields.decodeNil(forKey: key)) == false else { return nil }
            if let value = try? fields.decode(String.self, forKey: key) { return value }
            unreadable[key.rawValue] = "a value that is not text"
            return nil
        }
        displayPid = text(.displayPid)
        category = text(.category)
        minTemp = number(.minTemp)
        maxTemp = number(.maxTemp)
        minEnvHumid = number(.minEnvHumid)
        maxEnvHumid = number(.maxEnvHumid)
        minLightLux = number(.minLightLux)
        maxLightLux = number(.maxLightLux)
        minSoilMoist = number(.minSoilMoist)
        maxSoilMoist = number(.maxSoilMoist)
        watering = text(.watering)
        sunlight = text(.sunlight)
        soil = text(.soil)
        pruning = text(.pruning)
        fertilization = text(.fertilization)
        if fields.contains(.commonNames), (try? fields.decodeNil(forKey: .commonNames)) == false {
            if let names = try? fields.decode([LenientCommonName].self, forKey: .commonNames) {
                commonNames = names.compactMap(\.name)
            } else {
                unreadable[CodingKeys.commonNames.rawValue] = "a value that is not a list of names"
            }
        }
        unreadableFields = unreadable
    }

    /// One entry of `common_names`, nil when it is not a name.
    private struct LenientCommonName: Decodable {
        var name: CommonName?
        init(from decoder: any Decoder) throws {
            name = try? CommonName(from: decoder)
        }
    }
}
