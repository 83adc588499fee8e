/// A species record of the Trefle API v1 (`GET /api/v1/species/{id|slug}`, and `main_species` of a plant), with
/// only the fields care mapping reads. Real records are sparse: every field may be null or missing.
public struct TrefleSpecies: Decodable, Sendable, Hashable {
    public var id: Int
    public var slug: String?
    public var scientificName: String
    public var commonName: String?
    public var family: String?
    public var genus: String?
    public var commonNames: [String: [String]]?
    /// True for vegetables (Trefle's own flag; herbs are often false).
    public var vegetable: Bool?
    /// True when some part is eaten; `ediblePart` says which.
    public var edible: Bool?
    /// "roots", "stem", "leaves", "flowers", "fruits", "seeds", "tubers" (an array; "|"-separated text accepted).
    public var ediblePart: TrefleList?
    public var growth: Growth?
    public var specifications: Specifications?

    /// `growth`: Trefle's 0–10 scales and measures.
    public struct Growth: Decodable, Sendable, Hashable {
        public init() {}

        public var description: String?
        /// 0 (≤ 10 lux) to 10 (≥ 100,000 lux).
        public var light: Int?
        /// 0 (≤ 10 %) to 10 (≥ 90 %).
        public var atmosphericHumidity: Int?
        /// 0 (xerophile) to 10 (subaquatic).
        public var soilHumidity: Int?
        /// 0 (oligotrophic) to 10 (hypereutrophic).
        public var soilNutriments: Int?
        /// 0 (clay) to 10 (rock).
        public var soilTexture: Int?
        public var phMinimum: Double?
        public var phMaximum: Double?
        public var minimumTemperature: Temperature?
        public var maximumTemperature: Temperature?
        public var minimumPrecipitation: Millimetres?
        public var maximumPrecipitation: Millimetres?
        /// "jan" … "dec".
        public var bloomMonths: [String]?
        public var growthMonths: [String]?
        public var fruitMonths: [String]?
        /// Average days from planting to harvest.
        public var daysToHarvest: Double?
        /// How to sow it, in words.
        public var sowing: String?
        /// Minimum spacing between rows.
        public var rowSpacing: Centimetres?
        /// Average spread of one plant.
        public var spread: Centimetres?
    }

    /// A temperature, given in either scale or both.
    public struct Temperature: Decodable, Sendable, Hashable {
        public var degC: Double?
        public var degF: Double?

        public init(degC: Double?, degF: Double? = nil) {
            self.degC = degC
            self.degF = degF
        }

        /// Degrees Celsius: as given, else converted from Fahrenheit.
        public var celsius: Double? { degC ?? degF.map { (($0 - 32) * 5 / 9 * 10).rounded() / 10 } }
    }

    public struct Centimetres: Decodable, Sendable, Hashable {
        public var cm: Double?

        public init(cm: Double?) { self.cm = cm }
    }

    public struct Millimetres: Decodable, Sendable, Hashable {
        public var mm: Double?

        public init(mm: Double?) { self.mm = mm }
    }

    /// `specifications`.
    public struct Specifications: Decodable, Sendable, Hashable {
        /// "Slow", "Moderate", "Rapid".
        public var growthRate: String?
        /// "none", "low", "medium", "high".
        public var toxicity: String?
    }

    /// The edible parts, lower-cased; empty when nothing is recorded as eaten.
    public var edibleParts: [String] { (ediblePart?.values ?? []).map { $0.lowercased() } }

    public init(id: Int, scientificName: String, growth: Growth? = nil, specifications: Specifications? = nil) {
        self.id = id
        self.scientificName = scientificName
        self.growth = growth
        self.specifications = specifications
    }

    /// English common names as a person reads them (``CommonName``): `common_name` first, then the
    /// `common_names.en` list, without repeats.
    public var englishCommonNames: [String] {
        CommonName.display([commonName].compactMap { $0 } + (commonNames?["en"] ?? []))
    }
}

/// A list Trefle gives as a JSON array of strings, or in older records and corrections as one "|"-separated string.
public struct TrefleList: Decodable, Sendable, Hashable {
    public var values: [String]

    public init(_ values: [String]) { self.values = values }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            values = text.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        } else {
            values = try container.decode([String?].self).compactMap { $0 }
        }
    }
}

/// Trefle's envelope around one record: `{"data": {...}, "meta": {...}}`.
public struct TrefleEnvelope<Record: Decodable & Sendable>: Decodable, Sendable {
    public var data: Record
}

/// A page of a Trefle list or search: `{"data": [...], "links": {...}, "meta": {"total": N}}`.
public struct TreflePage<Record: Decodable & Sendable>: Decodable, Sendable {
    public var data: [Record]
    public var links: Links?
    public var meta: Meta?

    public struct Links: Decodable, Sendable {
        public var next: String?
        public var last: String?
    }

    public struct Meta: Decodable, Sendable {
        public var total: Int?
    }
}

/// A plant record (`GET /api/v1/plants/{id|slug}`): its care data lives in `main_species`.
public struct TreflePlant: Decodable, Sendable {
    public var id: Int
    public var scientificName: String
    public var mainSpecies: TrefleSpecies?
}

/// An entry of a list or search page: the summary fields only.
public struct TrefleSpeciesSummary: Decodable, Sendable, Hashable {
    public var id: Int
    public var slug: String?
    public var scientificName: String
    public var commonName: String?
    public var family: String?
    public var genus: String?
}

/// Trefle's error body. Its key is `message` for 404 and 429 but `messages` for 401 (both are accepted).
public struct TrefleErrorBody: Decodable, Sendable {
    public var message: String?
    public var messages: String?

    /// Whichever of the two keys is present.
    public var text: String? { message ?? messages }
}
