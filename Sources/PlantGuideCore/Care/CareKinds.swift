/// Light levels, from deep shade to full sun.
public enum LightLevel: String, Hashable, Sendable, Codable, CaseIterable {
    case fullShade = "full_shade"
    case partialShade = "partial_shade"
    case partialSun = "partial_sun"
    case fullSun = "full_sun"
}

/// How often to water in the growing season.
public enum WateringFrequency: String, Hashable, Sendable, Codable, CaseIterable {
    case daily
    case everyOtherDay = "every_other_day"
    case twiceWeekly = "twice_weekly"
    case weekly
    case biweekly
    case monthly

    /// Days between waterings.
    public var intervalDays: Int {
        switch self {
        case .daily: 1
        case .everyOtherDay: 2
        case .twiceWeekly: 3
        case .weekly: 7
        case .biweekly: 14
        case .monthly: 30
        }
    }
}

/// How much water at a time.
public enum WateringAmount: String, Hashable, Sendable, Codable, CaseIterable {
    case light, moderate, thorough, soak
}

/// The four seasons (of the hemisphere the data is written for: northern).
public enum Season: String, Hashable, Sendable, Codable, CaseIterable, Comparable {
    case spring, summer, autumn, winter

    /// The northern-hemisphere season of a month (1 = January): Mar–May spring, Jun–Aug summer, Sep–Nov autumn.
    public init(month: Int) {
        switch month {
        case 3...5: self = .spring
        case 6...8: self = .summer
        case 9...11: self = .autumn
        default: self = .winter
        }
    }

    /// The season's months (northern hemisphere).
    public var months: [Int] {
        switch self {
        case .spring: [3, 4, 5]
        case .summer: [6, 7, 8]
        case .autumn: [9, 10, 11]
        case .winter: [12, 1, 2]
        }
    }

    public static func < (lhs: Season, rhs: Season) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// How often to fertilise in the active months.
public enum FertilizerFrequency: String, Hashable, Sendable, Codable, CaseIterable {
    case none, weekly, biweekly, monthly, quarterly

    /// From Trefle's soil nutriments (0 oligotrophic … 10 hypereutrophic): 0–2 quarterly (plants of poor soils),
    /// 3–5 monthly, 6–8 every two weeks, 9–10 weekly; monthly when unknown.
    public init(soilNutriments: Int?) {
        switch soilNutriments {
        case .some(...2): self = .quarterly
        case .some(3...5), nil: self = .monthly
        case .some(6...8): self = .biweekly
        case .some: self = .weekly
        }
    }
}

/// What to fertilise with.
public enum FertilizerType: String, Hashable, Sendable, Codable, CaseIterable {
    case balancedLiquid = "balanced_liquid"
    case highNitrogen = "high_nitrogen"
    case highPotassium = "high_potassium"
    case slowRelease = "slow_release"
    case organic
    case cactus
    case acid
    /// Little nitrogen, rich in phosphate and potash: for root crops.
    case lowNitrogen = "low_nitrogen"
}

/// The air humidity a plant wants.
public enum HumidityLevel: String, Hashable, Sendable, Codable, CaseIterable {
    case low, medium, high
}

/// How fast a plant grows.
public enum GrowthRate: String, Hashable, Sendable, Codable, CaseIterable {
    case slow, moderate, fast
}

/// How poisonous a plant is to people and pets; `.unknown` when the source does not say.
public enum Toxicity: String, Hashable, Sendable, Codable, CaseIterable {
    case unknown, none, low, medium, high
}

/// Where care data came from: a whole answer (``CareInfo/source``) or one of its fields (``CareInfo/fieldSources``).
public enum CareSource: String, Hashable, Sendable, Codable, CaseIterable {
    /// Fetched from Trefle for this request.
    case trefle
    /// Open Plantbook (open.plantbook.io): measured ranges of temperature, air humidity and light.
    case openPlantbook = "open_plantbook"
    /// Perenual (perenual.com): watering, sunlight, hardiness, soil, growth, toxicity.
    case perenual
    /// GBIF's backbone taxonomy: the accepted name, family and genus (no care data).
    case gbif
    /// A fresh cache entry.
    case cache
    /// An expired cache entry whose refresh failed.
    case staleCache = "stale_cache"
    /// The offline catalog shipped with PlantGuide.
    case catalog
    /// Generic defaults: nothing better was known.
    case `default`
}

/// What kind of plant it is, which decides the defaults of the fields no source knows (``CareProfile``).
public enum PlantHabit: String, Hashable, Sendable, Codable, CaseIterable {
    /// Kept indoors all year.
    case houseplant
    /// Stores water in fleshy leaves or stems (cacti, echeverias, aloes).
    case succulent
    case tree
    case shrub
    /// Grown outdoors for its looks: garden and balcony plants.
    case outdoor
    /// Grown to be eaten.
    case vegetable
    case herb
}

/// The documented defaults used wherever a source says nothing.
public enum CareDefaults {
    /// March to September: the growing season of most plants in the northern hemisphere.
    public static let growingMonths = Array(3...9)
    public static let soil = "well-drained general-purpose potting mix"
}
