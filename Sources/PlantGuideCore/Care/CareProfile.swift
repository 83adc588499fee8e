import Foundation

/// Typical care of a kind of plant, for the fields no source knows. The kind is read from what is known (the
/// habit, the family, the lowest temperature, what is harvested), so that a frost-hardy crop never gets the
/// houseplant's 12 °C minimum. Every value here is a default and is marked so in the answer.
///
/// | kind | light | water | temperature (°C) | feeding | air |
/// |---|---|---|---|---|---|
/// | houseplant | partial sun 6 h | weekly, moderate | 12–30 | monthly balanced, Mar–Sep | medium |
/// | succulent | full sun 8 h | every 2 weeks, soak | 7–32 | quarterly cactus, Apr–Aug | low |
/// | tree or shrub | full sun 8 h | every 2 weeks, thorough | −15–35 | quarterly slow-release, Mar–Jun | medium |
/// | hardy outdoor plant | full sun 6 h | weekly, thorough | −10–30 | monthly balanced, Apr–Aug | medium |
/// | tender outdoor plant | partial sun 6 h | twice a week, moderate | 5–32 | monthly balanced, Apr–Sep | medium |
/// | cool-season crop | partial sun 6 h | twice a week, moderate | −5–24 | every 2 weeks, high-nitrogen, Mar–Oct | medium |
/// | warm-season crop | full sun 8 h | twice a week, thorough | 10–32 | every 2 weeks, high-potassium, May–Sep | medium |
/// | herb | full sun 6 h | weekly, light | 5–30 | monthly organic, Apr–Sep | low |
public enum CareProfile: String, Hashable, Sendable, CaseIterable {
    case houseplant
    case succulent
    case woody = "tree or shrub"
    case hardyOutdoor = "frost-hardy outdoor plant"
    case tenderOutdoor = "frost-tender outdoor plant"
    case coolSeasonCrop = "frost-hardy, cool-season crop"
    case warmSeasonCrop = "warm-season crop"
    case herb

    /// The kind of a plant from what is known of it.
    /// - Parameters:
    ///   - habit: what a source says the plant is.
    ///   - family: its family, for succulents, trees and crops no source classed.
    ///   - minimumCelsius: the lowest temperature a source gives: below 0 °C means frost-hardy.
    ///   - isCrop: whether something of it is harvested.
    public static func kind(habit: PlantHabit?, family: String, minimumCelsius: Double?, isCrop: Bool) -> CareProfile {
        let frostHardy = minimumCelsius.map { $0 < 0 }
        if habit == .succulent || succulentFamilies.contains(family) { return .succulent }
        switch habit {
        case .tree?, .shrub?: return .woody
        case .herb?: return .herb
        case .houseplant?: return .houseplant
        case .outdoor?: return frostHardy == false ? .tenderOutdoor : .hardyOutdoor
        case .vegetable?, .succulent?, nil: break
        }
        if habit == nil && !isCrop && woodyFamilies.contains(family) { return .woody }
        if habit == .vegetable || isCrop {
            if let frostHardy { return frostHardy ? .coolSeasonCrop : .warmSeasonCrop }
            return warmSeasonCropFamilies.contains(family) ? .warmSeasonCrop : .coolSeasonCrop
        }
        return frostHardy == true ? .hardyOutdoor : .houseplant
    }

    /// Families whose members people grow as succulents.
    static let succulentFamilies: Set<String> = ["Cactaceae", "Crassulaceae", "Aizoaceae", "Asphodelaceae"]
    /// Families of trees and shrubs only (maples, pines, oaks, birches, cypresses, yews, walnuts, elms, planes, willows).
    static let woodyFamilies: Set<String> = [
        "Aceraceae", "Pinaceae", "Fagaceae", "Betulaceae", "Cupressaceae", "Taxaceae", "Juglandaceae", "Ulmaceae", "Platanaceae",
        "Salicaceae",
    ]
    /// Crop families sown after the last frost (tomatoes, squash, maize); other crops are taken as cool-season.
    static let warmSeasonCropFamilies: Set<String> = ["Solanaceae", "Cucurbitaceae", "Poaceae", "Malvaceae", "Convolvulaceae"]

    public var light: LightRequirement {
        switch self {
        case .succulent, .woody, .warmSeasonCrop: LightRequirement(level: .fullSun, hoursPerDay: 8)
        case .hardyOutdoor, .herb: LightRequirement(level: .fullSun, hoursPerDay: 6)
        case .houseplant, .tenderOutdoor, .coolSeasonCrop: .default
        }
    }

    public var watering: WateringSchedule {
        switch self {
        case .houseplant: .default
        case .succulent: WateringSchedule(frequency: .biweekly, amount: .soak, seasonalAdjustments: [.winter: 2])
        case .woody: WateringSchedule(frequency: .biweekly, amount: .thorough, seasonalAdjustments: [.winter: 2])
        case .hardyOutdoor: WateringSchedule(frequency: .weekly, amount: .thorough, seasonalAdjustments: [.winter: 2])
        case .tenderOutdoor, .coolSeasonCrop: WateringSchedule(frequency: .twiceWeekly, amount: .moderate, seasonalAdjustments: [.winter: 2])
        case .warmSeasonCrop: WateringSchedule(frequency: .twiceWeekly, amount: .thorough, seasonalAdjustments: [.winter: 2])
        case .herb: WateringSchedule(frequency: .weekly, amount: .light, seasonalAdjustments: [.winter: 2])
        }
    }

    public var temperature: TemperatureRange {
        switch self {
        case .houseplant: .default
        case .succulent: TemperatureRange(minimumCelsius: 7, maximumCelsius: 32, optimalCelsius: 22)
        case .woody: TemperatureRange(minimumCelsius: -15, maximumCelsius: 35, optimalCelsius: 20)
        case .hardyOutdoor: TemperatureRange(minimumCelsius: -10, maximumCelsius: 30, optimalCelsius: 18)
        case .tenderOutdoor: TemperatureRange(minimumCelsius: 5, maximumCelsius: 32, optimalCelsius: 21)
        case .coolSeasonCrop: TemperatureRange(minimumCelsius: -5, maximumCelsius: 24, optimalCelsius: 16)
        case .warmSeasonCrop: TemperatureRange(minimumCelsius: 10, maximumCelsius: 32, optimalCelsius: 24)
        case .herb: TemperatureRange(minimumCelsius: 5, maximumCelsius: 30, optimalCelsius: 20)
        }
    }

    public var fertilizer: FertilizerSchedule {
        switch self {
        case .houseplant: .default
        case .succulent: FertilizerSchedule(frequency: .quarterly, type: .cactus, activeMonths: Array(4...8))
        case .woody: FertilizerSchedule(frequency: .quarterly, type: .slowRelease, activeMonths: Array(3...6))
        case .hardyOutdoor: FertilizerSchedule(frequency: .monthly, type: .balancedLiquid, activeMonths: Array(4...8))
        case .tenderOutdoor: FertilizerSchedule(frequency: .monthly, type: .balancedLiquid, activeMonths: Array(4...9))
        case .coolSeasonCrop: FertilizerSchedule(frequency: .biweekly, type: .highNitrogen, activeMonths: Array(3...10))
        case .warmSeasonCrop: FertilizerSchedule(frequency: .biweekly, type: .highPotassium, activeMonths: Array(5...9))
        case .herb: FertilizerSchedule(frequency: .monthly, type: .organic, activeMonths: Array(4...9))
        }
    }

    public var humidity: HumidityLevel {
        switch self {
        case .succulent, .herb: .low
        default: .medium
        }
    }

    public var soil: String {
        switch self {
        case .houseplant: CareDefaults.soil
        case .succulent: "gritty mineral mix (cactus soil)"
        case .woody: "deep, well-drained garden soil"
        case .hardyOutdoor, .tenderOutdoor: "well-drained garden soil or multi-purpose compost"
        case .coolSeasonCrop, .warmSeasonCrop: "fertile, moisture-retentive soil rich in compost"
        case .herb: "free-draining, not too rich soil"
        }
    }

    /// `care` with each field that no source gave (not in `known`) set to this profile's value.
    public func fill(_ care: CareInfo, known: Set<CareField>) -> CareInfo {
        var care = care
        if !known.contains(.light) { care.light = light }
        if !known.contains(.watering) { care.watering = watering }
        if !known.contains(.temperature) { care.temperature = temperature }
        if !known.contains(.fertilizer) { care.fertilizer = fertilizer }
        if !known.contains(.humidity) { care.humidity = humidity }
        if !known.contains(.soil) { care.soil = soil }
        if !known.contains(.growthRate) { care.growthRate = .moderate }
        if !known.contains(.toxicity) { care.toxicity = .unknown }
        return care
    }
}
