import Foundation

/// How to care for one species: the answer of the care-data service, and the input of schedule generation.
public struct CareInfo: Hashable, Sendable, Codable {
    /// Canonical scientific name, e.g. "Monstera deliciosa".
    public var scientificName: String
    /// Common names, most used first.
    public var commonNames: [String]
    public var family: String
    public var genus: String
    /// Trefle's species id when the data came from Trefle.
    public var trefleID: Int?
    public var light: LightRequirement
    public var watering: WateringSchedule
    public var temperature: TemperatureRange
    public var fertilizer: FertilizerSchedule
    public var humidity: HumidityLevel
    /// Soil advice in words.
    public var soil: String
    public var growthRate: GrowthRate
    public var bloomingSeasons: [Season]
    /// `.unknown` unless the source says; never assumed safe.
    public var toxicity: Toxicity
    /// Care notes, including which fields the source lacked and were filled with defaults.
    public var notes: [String]
    public var source: CareSource
    /// When the data was fetched from its source.
    public var fetchedAt: Date
    /// True when served past its time-to-live because a refresh failed.
    public var isStale: Bool
    /// What is harvested and when, for crops and herbs; nil for ornamentals and houseplants (and in cache
    /// entries written before crops were told apart).
    public var harvest: Harvest?
    /// What kind of plant it is, when a source says; nil when none does.
    public var habit: PlantHabit?
    /// Where each field came from when the answer was put together from several sources; a field missing here
    /// came from `source`. Nil in answers of one source (and cache entries written before sources were merged).
    public var fieldSources: [CareField: CareSource]?
    /// Common names in every language a source gave, beside `commonNames` (English); nil when none did.
    public var localizedCommonNames: [LocalizedName]?
    /// Values a source sent that were not served, in words: implausible ones (9999 °C, 500 % humidity) and ones of
    /// the wrong type. A merged answer puts them in its notes, whether or not that source gave another field; nil
    /// when there were none.
    public var discardedValues: [String]?

    public init(
        scientificName: String, commonNames: [String] = [], family: String = "", genus: String = "",
        trefleID: Int? = nil, light: LightRequirement = .default, watering: WateringSchedule = .default,
        temperature: TemperatureRange = .default, fertilizer: FertilizerSchedule = .default,
        humidity: HumidityLevel = .medium, soil: String = CareDefaults.soil, growthRate: GrowthRate = .moderate,
        bloomingSeasons: [Season] = [], toxicity: Toxicity = .unknown, notes: [String] = [],
        source: CareSource, fetchedAt: Date, isStale: Bool = false, harvest: Harvest? = nil, habit: PlantHabit? = nil,
        fieldSources: [CareField: CareSource]? = nil, localizedCommonNames: [LocalizedName]? = nil
    ) {
        self.scientificName = scientificName
        self.commonNames = commonNames
        self.family = family
        self.genus = genus
        self.trefleID = trefleID
        self.light = light
        self.watering = watering
        self.temperature = temperature
        self.fertilizer = fertilizer
        self.humidity = humidity
        self.soil = soil
        self.growthRate = growthRate
        self.bloomingSeasons = bloomingSeasons
        self.toxicity = toxicity
        self.notes = notes
        self.source = source
        self.fetchedAt = fetchedAt
        self.isStale = isStale
        self.harvest = harvest
        self.habit = habit
        self.fieldSources = fieldSources
        self.localizedCommonNames = localizedCommonNames
    }

    /// Where `field` came from.
    public func origin(of field: CareField) -> CareSource {
        fieldSources?[field] ?? source
    }
}

/// How much light a plant wants.
public struct LightRequirement: Hashable, Sendable, Codable {
    public var level: LightLevel
    /// Hours of light a day.
    public var hoursPerDay: Int

    public init(level: LightLevel, hoursPerDay: Int) {
        self.level = level
        self.hoursPerDay = hoursPerDay
    }

    /// Partial sun, 6 hours: what most houseplants sold in shops do well with.
    public static let `default` = LightRequirement(level: .partialSun, hoursPerDay: 6)
}

/// When and how much to water.
public struct WateringSchedule: Hashable, Sendable, Codable {
    public var frequency: WateringFrequency
    /// Days between waterings in the growing season.
    public var intervalDays: Int
    public var amount: WateringAmount
    /// Interval multipliers by season (2.0 = half as often).
    public var seasonalAdjustments: [Season: Double]

    public init(frequency: WateringFrequency, amount: WateringAmount, seasonalAdjustments: [Season: Double] = [:]) {
        self.frequency = frequency
        self.intervalDays = frequency.intervalDays
        self.amount = amount
        self.seasonalAdjustments = seasonalAdjustments
    }

    /// Half as often (×2) in each season with no growing month; winter alone when the growing months are unknown.
    public static func dormantAdjustments(growingMonths: [Int]) -> [Season: Double] {
        guard !growingMonths.isEmpty else { return [.winter: 2] }
        let growing = Set(growingMonths.map(Season.init(month:)))
        return Dictionary(uniqueKeysWithValues: Season.allCases.filter { !growing.contains($0) }.map { ($0, 2.0) })
    }

    /// Weekly, moderate, half as often in winter.
    public static let `default` = WateringSchedule(frequency: .weekly, amount: .moderate, seasonalAdjustments: [.winter: 2])
}

/// Temperatures a plant tolerates, in degrees Celsius.
public struct TemperatureRange: Hashable, Sendable, Codable {
    public var minimumCelsius: Double
    public var maximumCelsius: Double
    public var optimalCelsius: Double
    /// True when the plant survives frost (its minimum is below 0 °C).
    public var isFrostTolerant: Bool

    public init(minimumCelsius: Double, maximumCelsius: Double, optimalCelsius: Double) {
        self.minimumCelsius = minimumCelsius
        self.maximumCelsius = maximumCelsius
        self.optimalCelsius = optimalCelsius
        self.isFrostTolerant = minimumCelsius < 0
    }

    /// A typical houseplant: 12–30 °C, best at 21 °C.
    public static let `default` = TemperatureRange(minimumCelsius: 12, maximumCelsius: 30, optimalCelsius: 21)
}

/// When and what to feed.
public struct FertilizerSchedule: Hashable, Sendable, Codable {
    public var frequency: FertilizerFrequency
    public var type: FertilizerType
    /// Months (1–12, northern hemisphere) in which to fertilise.
    public var activeMonths: [Int]

    public init(frequency: FertilizerFrequency, type: FertilizerType, activeMonths: [Int]) {
        self.frequency = frequency
        self.type = type
        self.activeMonths = activeMonths
    }

    /// Monthly balanced liquid feed, March to September.
    public static let `default` = FertilizerSchedule(
        frequency: .monthly, type: .balancedLiquid, activeMonths: CareDefaults.growingMonths)
}
