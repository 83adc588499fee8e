import Foundation
import PlantGuideCore

/// Turns Perenual's species details into the care fields it has: only those appear in the answer's field sources.
///
/// | care field | from Perenual | rule |
/// |---|---|---|
/// | watering | `watering`, `watering_general_benchmark` | Frequent 2× a week, Average weekly, Minimum 2-weekly, None monthly; a plausible benchmark |
/// | light | `sunlight[]` | the first of: full sun (8 h), part sun (6 h), part shade or filtered shade (4 h), full or deep shade (3 h) |
/// | temperature | `hardiness.min` (USDA zone) | minimum: the warmer half of that zone (zone 7: −15 °C, zone 10: 1.7 °C); maximum: the kind's default |
/// | soil | `soil[]` | joined |
/// | growth rate | `growth_rate` | High fast, Moderate moderate, Low slow |
/// | toxicity | `poisonous_to_humans`, `poisonous_to_pets` | either: medium, with a note; both false: none |
/// | blooming seasons | `flowering_season` | the season named |
/// | harvest | `edible_fruit`, `edible_leaf` | a fruit or leaf crop |
/// | habit | `type`, `indoor`, edibility | tree, shrub, succulent, houseplant, vegetable, herb, else outdoor |
public enum PerenualMapping {
    public static func careInfo(from species: PerenualSpecies, fetchedAt: Date) -> CareInfo {
        let name = species.scientificNames.lazy.compactMap(ScientificName.init).first
        let habit = habit(species)
        var care = CareInfo(
            scientificName: name?.canonical ?? species.scientificNames.first ?? "", commonNames: [species.commonName].compactMap { $0 } + species.otherNames,
            family: species.family ?? "", genus: name?.genus ?? "", source: .perenual, fetchedAt: fetchedAt, habit: habit)
        var supplied: Set<CareField> = [.habit]
        if !care.commonNames.isEmpty { supplied.insert(.commonNames) }
        if species.family != nil { supplied.insert(.family) }
        var discarded: [String] = []
        if let benchmark = species.wateringBenchmark, species.wateringBenchmarkUnit?.lowercased() == "days", days(benchmark) == nil {
            discarded.append(CarePlausibility.note(provider, "watering benchmark", "“\(benchmark)” days is not \(CarePlausibility.wateringDays.lowerBound) "
                                                   + "to \(CarePlausibility.wateringDays.upperBound) days"))
        }
        if let zone = species.hardinessMinimum, !CarePlausibility.hardinessZone.contains(zone) {
            discarded.append(CarePlausibility.note(provider, "hardiness zone", "USDA zone \(zone) does not exist"))
        }
        if let watering = watering(species.watering, benchmark: species.wateringBenchmark, unit: species.wateringBenchmarkUnit) {
            care.watering = watering
            supplied.insert(.watering)
        }
        if let light = light(species.sunlight) {
            care.light = light
            supplied.insert(.light)
        }
        if let zone = species.hardinessMinimum, let minimum = minimumCelsius(zone: zone) {
            let profile = CareProfile.kind(habit: habit, family: care.family, minimumCelsius: minimum, isCrop: false)
            care.temperature = TrefleCareMapping.temperature(minimum: minimum, maximum: max(profile.temperature.maximumCelsius, minimum + 10))
            care.notes.append(String(format: "Hardy to USDA zone %d (about %.0f °C, Perenual); the highest temperature is a default.", zone, minimum))
            supplied.insert(.temperature)
        }
        if !species.soil.isEmpty {
            care.soil = species.soil.joined(separator: ", ")
            supplied.insert(.soil)
        }
        if let rate = growthRate(species.growthRate) {
            care.growthRate = rate
            supplied.insert(.growthRate)
        }
        if let toxicity = toxicity(humans: species.poisonousToHumans, pets: species.poisonousToPets) {
            care.toxicity = toxicity
            supplied.insert(.toxicity)
        }
        if species.poisonousToPets == true { care.notes.append("Poisonous to pets (Perenual).") }
        if species.poisonousToHumans == true { care.notes.append("Poisonous to people if eaten (Perenual).") }
        if let season = species.floweringSeason.flatMap(season) {
            care.bloomingSeasons = [season]
            supplied.insert(.bloomingSeasons)
        }
        if let harvest = harvest(species) {
            care.harvest = harvest
            supplied.insert(.harvest)
        }
        if let level = species.careLevel { care.notes.append("Care level: \(level.lowercased()) (Perenual).") }
        care.discardedValues = discarded.isEmpty ? nil : discarded
        care.fieldSources = Dictionary(uniqueKeysWithValues: supplied.map { ($0, .perenual) })
        return care
    }

    private static let provider = "Perenual"

    /// The first day count of a benchmark such as "7-10" or "5", when it is a plausible interval
    /// (``CarePlausibility/wateringDays``) and a range's ends are in order; nil for "-5", "0", "10-7" or words.
    static func days(_ benchmark: String) -> Int? {
        let parts = benchmark.split(separator: "-", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard (1...2).contains(parts.count), let first = Int(parts[0]), CarePlausibility.wateringDays.contains(first) else { return nil }
        if parts.count == 2 {
            guard let last = Int(parts[1]), CarePlausibility.wateringDays.contains(last), first <= last else { return nil }
        }
        return first
    }

    static func habit(_ species: PerenualSpecies) -> PlantHabit {
        let type = species.type?.lowercased() ?? ""
        if type.contains("tree") { return .tree }
        if type.contains("shrub") { return .shrub }
        if type.contains("succulent") || type.contains("cactus") { return .succulent }
        if type.contains("herb") && (species.edibleLeaf == true) { return .herb }
        if species.indoor == true { return .houseplant }
        if type.contains("vegetable") || species.edibleLeaf == true { return .vegetable }
        return .outdoor
    }

    static func watering(_ word: String?, benchmark: String?, unit: String?) -> WateringSchedule? {
        let frequency: WateringFrequency
        switch word?.lowercased() {
        case "frequent": frequency = .twiceWeekly
        case "average": frequency = .weekly
        case "minimum": frequency = .biweekly
        case "none": frequency = .monthly
        default: return nil
        }
        var schedule = WateringSchedule(frequency: frequency, amount: .moderate, seasonalAdjustments: [.winter: 2])
        if unit?.lowercased() == "days", let first = benchmark.flatMap(days) {
            schedule.intervalDays = first
        }
        return schedule
    }

    static func light(_ sunlight: [String]) -> LightRequirement? {
        for entry in sunlight.map({ $0.lowercased() }) {
            if entry.hasPrefix("full sun") { return LightRequirement(level: .fullSun, hoursPerDay: 8) }
            if entry.hasPrefix("part sun") || entry.hasPrefix("sun-part") { return LightRequirement(level: .partialSun, hoursPerDay: 6) }
            if entry.hasPrefix("part shade") || entry.hasPrefix("filtered") { return LightRequirement(level: .partialShade, hoursPerDay: 4) }
            if entry.hasPrefix("full shade") || entry.hasPrefix("deep shade") { return LightRequirement(level: .fullShade, hoursPerDay: 3) }
        }
        return nil
    }

    /// The lowest winter temperature of the warmer half of a USDA zone (1–13): zone n spans
    /// −51.1 + 5.56·(n−1) °C upwards, and a plant rated for it may meet the colder half only briefly.
    static func minimumCelsius(zone: Int) -> Double? {
        guard CarePlausibility.hardinessZone.contains(zone) else { return nil }
        return ((-51.1 + 5.56 * Double(zone - 1) + 2.78) * 10).rounded() / 10
    }

    static func growthRate(_ text: String?) -> GrowthRate? {
        switch text?.lowercased() {
        case "high", "fast": .fast
        case "moderate", "medium": .moderate
        case "low", "slow": .slow
        default: nil
        }
    }

    static func toxicity(humans: Bool?, pets: Bool?) -> Toxicity? {
        if humans == true || pets == true { return .medium }
        if humans == false && pets == false { return Toxicity.none }
        return nil
    }

    static func season(_ text: String) -> Season? {
        Season(rawValue: text.lowercased().replacingOccurrences(of: "fall", with: "autumn"))
    }

    static func harvest(_ species: PerenualSpecies) -> Harvest? {
        if species.edibleFruit == true { return Harvest(crop: .fruit, edibleParts: ["fruits"], daysToHarvest: nil, months: []) }
        if species.edibleLeaf == true { return Harvest(crop: .leaf, edibleParts: ["leaves"], daysToHarvest: nil, months: []) }
        return nil
    }
}
