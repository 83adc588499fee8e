import Foundation

/// Turns a Trefle species record into ``CareInfo``. Pure; every rule is a small function below.
///
/// | care field | from Trefle | rule (missing → default) |
/// |---|---|---|
/// | light | `growth.light` 0–10 | 0–2 full shade (3 h), 3–4 partial shade (4 h), 5–6 partial sun (6 h), 7–10 full sun (8 h); → partial sun |
/// | watering frequency | `soil_humidity`, else precipitation, else `atmospheric_humidity` | see ``wateringFrequency(_:)``; → weekly |
/// | watering amount | `soil_humidity` | 0–2 light, 3–5 moderate, 6–8 thorough, 9–10 soak; → moderate |
/// | seasonal adjustment | `growth_months` | seasons with no growth month: interval ×2; → winter ×2 |
/// | humidity | `atmospheric_humidity` | 0–3 low, 4–6 medium, 7–10 high; → medium |
/// | temperature | `minimum/maximum_temperature` (°C, else °F) | optimal = midpoint clamped to 15–27 °C; → 12–30 °C, 21 °C |
/// | fertiliser | `soil_nutriments`, `ph_maximum`, `bloom_months` | see ``fertilizer(_:)``; → monthly balanced liquid |
/// | … of crops and herbs | `edible_part`, `vegetable`, `soil_nutriments`, months | ``CropCare``: by what is harvested |
/// | harvest | `days_to_harvest`, `fruit_months`, `growth_months` | ``CropCare/harvestMonths(growth:fruit:daysToHarvest:)`` |
/// | active months | `growth_months`, else `bloom_months` | → March–September |
/// | blooming seasons | `bloom_months` | northern-hemisphere seasons of those months; → none |
/// | soil | `soil_texture`, `ph_minimum/maximum` | clay / loam / sandy / gritty, with the pH range; → general potting mix |
/// | growth rate | `specifications.growth_rate` | Slow, Moderate, Rapid; → moderate |
/// | toxicity | `specifications.toxicity` | none, low, medium, high; → unknown (never assumed safe) |
/// | notes | `description`, `sowing`, `spread`, `row_spacing`, edibility | ``TrefleCareNotes`` |
public enum TrefleCareMapping {
    /// The care info of `species`, fetched at `fetchedAt`. Crops and herbs (the record names edible parts) are fed
    /// and harvested by ``CropCare``'s rules; notes name every field served from a default (``TrefleCareNotes``).
    public static func careInfo(from species: TrefleSpecies, fetchedAt: Date) -> CareInfo {
        let growth = species.growth ?? TrefleSpecies.Growth()
        let crop = CropCare.kind(edibleParts: species.edibleParts, vegetable: species.vegetable, family: species.family)
        let name = ScientificName(species.scientificName)
        return CareInfo(
            scientificName: name?.canonical ?? species.scientificName,
            commonNames: species.englishCommonNames,
            family: species.family ?? "",
            genus: species.genus ?? name?.genus ?? "",
            trefleID: species.id,
            light: light(growth.light),
            watering: watering(growth),
            temperature: temperature(minimum: growth.minimumTemperature?.celsius, maximum: growth.maximumTemperature?.celsius),
            fertilizer: crop.map { cropFertilizer(growth, $0) } ?? fertilizer(growth),
            humidity: humidity(growth.atmosphericHumidity),
            soil: soil(texture: growth.soilTexture, phMinimum: growth.phMinimum, phMaximum: growth.phMaximum),
            growthRate: growthRate(species.specifications?.growthRate),
            bloomingSeasons: seasons(ofMonths: months(growth.bloomMonths)),
            toxicity: toxicity(species.specifications?.toxicity),
            notes: TrefleCareNotes.notes(species, crop: crop),
            source: .trefle,
            fetchedAt: fetchedAt,
            harvest: crop.map { harvest(species, crop: $0) },
            habit: crop.map { $0 == .herb ? .herb : .vegetable },
            fieldSources: Dictionary(uniqueKeysWithValues: suppliedFields(species, crop: crop).map { ($0, .trefle) })
        )
    }

    /// The care fields the record has data for; the others hold defaults, for the merge to fill from a better
    /// source.
    public static func suppliedFields(_ species: TrefleSpecies, crop: CropKind?) -> Set<CareField> {
        let growth = species.growth ?? TrefleSpecies.Growth()
        let checks: [(CareField, Bool)] = [
            (.commonNames, !species.englishCommonNames.isEmpty),
            (.family, species.family != nil),
            (.genus, true),
            (.habit, crop != nil),
            (.light, growth.light != nil),
            (.watering, growth.soilHumidity != nil || growth.minimumPrecipitation?.mm != nil
                || growth.maximumPrecipitation?.mm != nil || growth.atmosphericHumidity != nil),
            (.temperature, growth.minimumTemperature?.celsius != nil || growth.maximumTemperature?.celsius != nil),
            (.fertilizer, growth.soilNutriments != nil || !months(growth.growthMonths).isEmpty || crop != nil),
            (.humidity, growth.atmosphericHumidity != nil),
            (.soil, growth.soilTexture != nil || growth.phMinimum != nil || growth.phMaximum != nil),
            (.growthRate, species.specifications?.growthRate != nil),
            (.bloomingSeasons, !months(growth.bloomMonths).isEmpty),
            (.toxicity, species.specifications?.toxicity != nil),
            (.harvest, crop != nil),
        ]
        return Set(checks.filter(\.1).map(\.0))
    }

    /// A crop's feeding (``CropCare``): its feed, how often from soil nutriments, in its growing months.
    public static func cropFertilizer(_ growth: TrefleSpecies.Growth, _ crop: CropKind) -> FertilizerSchedule {
        FertilizerSchedule(
            frequency: CropCare.frequency(crop, nutriments: growth.soilNutriments), type: CropCare.feed(crop),
            activeMonths: CropCare.feedingMonths(
                crop, growth: months(growth.growthMonths), bloom: months(growth.bloomMonths), fruit: months(growth.fruitMonths)))
    }

    /// What a crop gives and when: its edible parts, the days to harvest (rounded) and the harvest months.
    public static func harvest(_ species: TrefleSpecies, crop: CropKind) -> Harvest {
        let growth = species.growth ?? TrefleSpecies.Growth()
        let days = daysToHarvest(growth)
        return Harvest(
            crop: crop, edibleParts: species.edibleParts, daysToHarvest: days,
            months: CropCare.harvestMonths(growth: months(growth.growthMonths), fruit: months(growth.fruitMonths), daysToHarvest: days))
    }

    /// `days_to_harvest` rounded to whole days; nil when missing or not a plausible number (over ten years).
    public static func daysToHarvest(_ growth: TrefleSpecies.Growth) -> Int? {
        growth.daysToHarvest.flatMap { $0.isFinite && $0 > 0 && $0 < 3_650 ? Int($0.rounded()) : nil }
    }

    /// Light 0–10 (lux on a log scale) to a level and hours of light.
    public static func light(_ scale: Int?) -> LightRequirement {
        switch scale {
        case .some(...2): LightRequirement(level: .fullShade, hoursPerDay: 3)
        case .some(3...4): LightRequirement(level: .partialShade, hoursPerDay: 4)
        case .some(5...6): LightRequirement(level: .partialSun, hoursPerDay: 6)
        case .some(7...): LightRequirement(level: .fullSun, hoursPerDay: 8)
        default: .default
        }
    }

    /// Watering frequency and amount, and the seasons in which to water less.
    public static func watering(_ growth: TrefleSpecies.Growth) -> WateringSchedule {
        WateringSchedule(
            frequency: wateringFrequency(growth), amount: wateringAmount(growth.soilHumidity),
            seasonalAdjustments: WateringSchedule.dormantAdjustments(growingMonths: months(growth.growthMonths)))
    }

    /// From soil humidity (what the roots want) when known: 0–1 monthly, 2–3 biweekly, 4–5 weekly, 6–7 twice
    /// weekly, 8 every other day, 9–10 daily. Else from yearly precipitation (mean of min and max): < 250 mm
    /// monthly, < 500 biweekly, < 1,000 weekly, < 2,000 twice weekly, more every other day. Else from air
    /// humidity: 0–2 biweekly, 3–6 weekly, 7–10 twice weekly. Else weekly.
    public static func wateringFrequency(_ growth: TrefleSpecies.Growth) -> WateringFrequency {
        if let soil = growth.soilHumidity {
            switch soil {
            case ...1: return .monthly
            case 2...3: return .biweekly
            case 4...5: return .weekly
            case 6...7: return .twiceWeekly
            case 8: return .everyOtherDay
            default: return .daily
            }
        }
        let precipitation = [growth.minimumPrecipitation?.mm, growth.maximumPrecipitation?.mm].compactMap { $0 }
        if !precipitation.isEmpty {
            switch precipitation.reduce(0, +) / Double(precipitation.count) {
            case ..<250: return .monthly
            case ..<500: return .biweekly
            case ..<1_000: return .weekly
            case ..<2_000: return .twiceWeekly
            default: return .everyOtherDay
            }
        }
        switch growth.atmosphericHumidity {
        case .some(...2): return .biweekly
        case .some(3...6): return .weekly
        case .some: return .twiceWeekly
        case nil: return .weekly
        }
    }

    public static func wateringAmount(_ soilHumidity: Int?) -> WateringAmount {
        switch soilHumidity {
        case .some(...2): .light
        case .some(3...5): .moderate
        case .some(6...8): .thorough
        case .some: .soak
        case nil: .moderate
        }
    }

    public static func humidity(_ atmospheric: Int?) -> HumidityLevel {
        switch atmospheric {
        case .some(...3): .low
        case .some(4...6): .medium
        case .some: .high
        case nil: .medium
        }
    }

    /// Minimum and maximum as given (each defaulting alone); the optimum is their midpoint kept within 15–27 °C.
    public static func temperature(minimum: Double?, maximum: Double?) -> TemperatureRange {
        let low = minimum ?? TemperatureRange.default.minimumCelsius
        let high = max(maximum ?? TemperatureRange.default.maximumCelsius, low)
        let optimal = minimum == nil && maximum == nil ? TemperatureRange.default.optimalCelsius : min(max((low + high) / 2, 15), 27)
        return TemperatureRange(minimumCelsius: low, maximumCelsius: high, optimalCelsius: optimal)
    }

    /// From soil nutriments: 0–2 quarterly slow-release (plants of poor soils), 3–5 monthly, 6–8 biweekly, 9–10
    /// weekly. Type: acid feed when the pH maximum is ≤ 6 (ericaceous plants); high-potassium for rich-soil
    /// bloomers (nutriments ≥ 6 with bloom months); high-nitrogen for 9–10; else balanced liquid. Active in the
    /// growth months, else the bloom months, else March–September.
    public static func fertilizer(_ growth: TrefleSpecies.Growth) -> FertilizerSchedule {
        let nutriments = growth.soilNutriments
        let frequency = FertilizerFrequency(soilNutriments: nutriments)
        let blooms = !months(growth.bloomMonths).isEmpty
        let type: FertilizerType
        if let ph = growth.phMaximum, ph <= 6 {
            type = .acid
        } else if let nutriments, nutriments <= 2 {
            type = .slowRelease
        } else if let nutriments, nutriments >= 9 {
            type = .highNitrogen
        } else if let nutriments, nutriments >= 6, blooms {
            type = .highPotassium
        } else {
            type = .balancedLiquid
        }
        let active = months(growth.growthMonths)
        let bloom = months(growth.bloomMonths)
        return FertilizerSchedule(
            frequency: frequency, type: type,
            activeMonths: !active.isEmpty ? active : !bloom.isEmpty ? bloom : CareDefaults.growingMonths)
    }

    /// Soil in words from texture (0 clay … 10 rock) and the pH range.
    public static func soil(texture: Int?, phMinimum: Double?, phMaximum: Double?) -> String {
        var text: String
        switch texture {
        case .some(...2): text = "moisture-retentive loam with clay"
        case .some(3...5): text = "loamy, well-drained potting mix"
        case .some(6...8): text = "sandy, free-draining mix"
        case .some: text = "gritty mineral mix (cactus soil)"
        case nil: text = CareDefaults.soil
        }
        switch (phMinimum, phMaximum) {
        case let (low?, high?): text += String(format: ", pH %.1f–%.1f", low, high)
        case let (low?, nil): text += String(format: ", pH from %.1f", low)
        case let (nil, high?): text += String(format: ", pH up to %.1f", high)
        case (nil, nil): break
        }
        return text
    }

    public static func growthRate(_ text: String?) -> GrowthRate {
        switch text?.lowercased() {
        case "slow": .slow
        case "rapid", "fast": .fast
        default: .moderate
        }
    }

    public static func toxicity(_ text: String?) -> Toxicity {
        Toxicity(rawValue: text?.lowercased() ?? "") ?? .unknown
    }

    /// Trefle month names ("jan" … "dec", any case) to numbers 1–12, sorted, unknown names dropped.
    public static func months(_ names: [String]?) -> [Int] {
        let all = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        return Set((names ?? []).compactMap { name in all.firstIndex(of: String(name.lowercased().prefix(3))).map { $0 + 1 } }).sorted()
    }

    /// The seasons a set of months falls in, in season order.
    public static func seasons(ofMonths months: [Int]) -> [Season] {
        Set(months.map(Season.init(month:))).sorted()
    }
}
