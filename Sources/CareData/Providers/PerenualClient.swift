import Foundation
import PlantGuideHTTP
import Synchronization

/// Where and with which key the Perenual client asks (https://perenual.com, API v2).
public struct PerenualConfiguration: Sendable {
    public var baseURL: URL
    /// The API key (sent as `key=` in the query, as Perenual wants); nil means the provider is off.
    public var key: String?
    /// Requests a day at most (UTC days). The free tier allows about 100; the default keeps 10 spare.
    public var dailyBudget = 90
    /// The daily budget is what bounds Perenual's requests; per minute, 60 as for the others.
    public var limits = UpstreamLimits(requestsPerMinute: 60)
    /// The current time, for the budget's day (tests move it).
    public var now: @Sendable () -> Date = { Date() }

    public init(baseURL: URL = URL(string: "https://perenual.com")!, key: String?) {
        self.baseURL = baseURL
        self.key = key
    }

    public var isConfigured: Bool { !(key ?? "").isEmpty }
}

/// A client of Perenual's species API, within a daily request budget: `species-list?q=` to find a species'
/// id, then `species/details/{id}`. Every request sent spends one of the budget, retries included; a budget spent
/// fails requests as rate-limited until the next UTC day, without sending them.
public final class PerenualClient: Sendable {
    public let configuration: PerenualConfiguration
    let requester: UpstreamRequester
    private let budget: DailyBudget

    public init(configuration: PerenualConfiguration, http: any HTTPClient = CurlHTTPClient()) {
        self.configuration = configuration
        let budget = DailyBudget(limit: configuration.dailyBudget, now: configuration.now)
        self.budget = budget
        requester = UpstreamRequester(provider: "Perenual", metric: "perenual", limits: configuration.limits,
                                      configured: configuration.isConfigured, http: http, beforeSending: { try budget.spend() })
    }

    public var isConfigured: Bool { configuration.isConfigured }

    /// Requests left in today's budget.
    public var budgetLeft: Int { budget.left }

    /// `GET /api/v2/species-list?q=…`: species whose names contain `query`.
    public func search(_ query: String) async throws -> [PerenualSummary] {
        let object = try await get(["api", "v2", "species-list"], query: ["q": query]).object
        return (object["data"] as? [[String: Any]] ?? []).compactMap(PerenualSummary.init)
    }

    /// `GET /api/v2/species/details/{id}`, with the body as received.
    public func details(id: Int) async throws -> (species: PerenualSpecies, raw: Data) {
        let (object, raw) = try await get(["api", "v2", "species", "details", String(id)], query: [:])
        guard let species = PerenualSpecies(object) else {
            throw requester.unreadable("Perenual's details of species \(id) have no id")
        }
        return (species, raw)
    }

    private func get(_ path: [String], query: [String: String]) async throws -> (object: [String: Any], raw: Data) {
        guard let key = configuration.key, isConfigured else {
            throw requester.error(.notConfigured, "no Perenual key (PLANTGUIDE_PERENUAL_KEY)")
        }
        let url = UpstreamRequester.url(configuration.baseURL, path, query: query.merging(["key": key]) { $1 })
        let response = try await requester.send(HTTPRequest(url: url, headers: ["Accept": "application/json"]))
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] else {
            throw requester.unreadable("Perenual's answer for \(url.path) is not a JSON object")
        }
        return (object, response.body)
    }
}

/// Perenual's requests a UTC day: spent before each request is sent.
final class DailyBudget: Sendable {
    let limit: Int
    private let now: @Sendable () -> Date
    private let spent = Mutex<(day: Int, count: Int)>((0, 0))

    init(limit: Int, now: @escaping @Sendable () -> Date) {
        self.limit = limit
        self.now = now
    }

    /// Requests left today.
    var left: Int {
        let today = Self.day(now())
        return spent.withLock { $0.day == today ? max(0, limit - $0.count) : limit }
    }

    /// Spends one request of today's budget.
    /// - Throws: ``ProviderError/Code/rateLimited`` (retry after the next UTC midnight) when it is spent.
    func spend() throws {
        let time = now()
        let today = Self.day(time)
        let allowed = spent.withLock { spent in
            if spent.day != today { spent = (today, 0) }
            guard spent.count < limit else { return false }
            spent.count += 1
            return true
        }
        guard allowed else {
            let midnight = Double(today + 1) * 86_400 - time.timeIntervalSince1970
            throw ProviderError(.rateLimited, "today's budget of \(limit) requests is spent", retryAfter: .seconds(max(1, midnight)),
                                provider: "Perenual")
        }
    }

    private static func day(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) }
}

/// One species in a `species-list` page.
public struct PerenualSummary: Sendable, Equatable {
    public var id: Int
    public var commonName: String?
    public var scientificNames: [String]

    init?(_ object: [String: Any]) {
        guard let id = object["id"] as? Int else { return nil }
        self.id = id
        commonName = PerenualValue.text(object["common_name"])
        scientificNames = PerenualValue.texts(object["scientific_name"])
    }
}

/// The fields of Perenual's species details PlantGuide reads. Perenual sends, in place of values kept for paid
/// plans, text such as "Upgrade Plans To Premium/Supreme - … I'm sorry", and "Coming Soon" for values it does
/// not have yet: both are read as missing.
public struct PerenualSpecies: Sendable, Equatable {
    public var id: Int
    public var commonName: String?
    public var scientificNames: [String]
    public var otherNames: [String]
    public var family: String?
    /// "Tree", "Bulb", "herb", …
    public var type: String?
    public var cycle: String?
    /// "Frequent", "Average", "Minimum", "None".
    public var watering: String?
    /// "7-10" (days) from `watering_general_benchmark`.
    public var wateringBenchmark: String?
    public var wateringBenchmarkUnit: String?
    public var sunlight: [String]
    /// USDA hardiness zones.
    public var hardinessMinimum, hardinessMaximum: Int?
    public var soil: [String]
    public var growthRate: String?
    public var droughtTolerant, tropical, indoor: Bool?
    public var careLevel: String?
    public var floweringSeason: String?
    public var edibleFruit, edibleLeaf: Bool?
    public var poisonousToHumans, poisonousToPets: Bool?

    init?(_ object: [String: Any]) {
        guard let id = object["id"] as? Int else { return nil }
        self.id = id
        commonName = PerenualValue.text(object["common_name"])
        scientificNames = PerenualValue.texts(object["scientific_name"])
        otherNames = PerenualValue.texts(object["other_name"])
        family = PerenualValue.text(object["family"])
        type = PerenualValue.text(object["type"])
        cycle = PerenualValue.text(object["cycle"])
        watering = PerenualValue.text(object["watering"])
        let benchmark = object["watering_general_benchmark"] as? [String: Any]
        wateringBenchmark = PerenualValue.text(benchmark?["value"])
        wateringBenchmarkUnit = PerenualValue.text(benchmark?["unit"])
        sunlight = PerenualValue.texts(object["sunlight"])
        let hardiness = object["hardiness"] as? [String: Any]
        hardinessMinimum = PerenualValue.integer(hardiness?["min"])
        hardinessMaximum = PerenualValue.integer(hardiness?["max"])
        soil = PerenualValue.texts(object["soil"])
        growthRate = PerenualValue.text(object["growth_rate"])
        droughtTolerant = PerenualValue.flag(object["drought_tolerant"])
        tropical = PerenualValue.flag(object["tropical"])
        indoor = PerenualValue.flag(object["indoor"])
        careLevel = PerenualValue.text(object["care_level"])
        floweringSeason = PerenualValue.text(object["flowering_season"])
        edibleFruit = PerenualValue.flag(object["edible_fruit"])
        edibleLeaf = PerenualValue.flag(object["edible_leaf"])
        poisonousToHumans = PerenualValue.flag(object["poisonous_to_humans"])
        poisonousToPets = PerenualValue.flag(object["poisonous_to_pets"])
    }
}

/// Reads Perenual's loosely typed values: numbers sent as text and text sent as numbers, and placeholders.
enum PerenualValue {
    /// A value Perenual withholds or does not have: "Upgrade Plans To Premium…", "Coming Soon".
    static func isPlaceholder(_ text: String) -> Bool {
        let folded = text.lowercased()
        return folded.hasPrefix("upgrade plan") || folded.contains("i'm sorry") || folded.contains("im sorry")
            || folded == "coming soon"
    }

    static func text(_ value: Any?) -> String? {
        let text: String
        switch value {
        case let string as String: text = string.trimmingCharacters(in: .whitespacesAndNewlines)
        case let number as NSNumber where !(value is Bool): text = number.stringValue
        default: return nil
        }
        return text.isEmpty || isPlaceholder(text) ? nil : text
    }

    static func texts(_ value: Any?) -> [String] {
        (value as? [Any] ?? []).compactMap(text)
    }

    static func integer(_ value: Any?) -> Int? {
        switch value {
        case let number as Int: number
        case let string as String: Int(string.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    /// Every form Perenual sends a yes or no in: `true`/`false`, 1/0, and the same as text ("1", "0", "true",
    /// "false", "yes", "no"). Anything else is unknown.
    static func flag(_ value: Any?) -> Bool? {
        switch value {
        case let flag as Bool: return flag
        case let number as Int: return number == 0 ? false : number == 1 ? true : nil
        case let string as String:
            switch string.trimmingCharacters(in: .whitespaces).lowercased() {
            case "1", "true", "yes": return true
            case "0", "false", "no": return false
            default: return nil
            }
        default: return nil
        }
    }
}
