import Foundation
import PlantGuideCore

/// Turns an Open Plantbook plant into the care fields it has: only those appear in the answer's field sources.
///
/// | care field | from Open Plantbook | rule |
/// |---|---|---|
/// | temperature | `min_temp`, `max_temp` (°C) | as given; optimum their midpoint kept within 15–27 °C |
/// | humidity | `min_env_humid`, `max_env_humid` (%) | mean < 40 low, ≤ 65 medium, more high |
/// | light | `max_light_lux` | ≥ 40,000 full sun (8 h), ≥ 12,000 partial sun (6 h), ≥ 4,000 partial shade (4 h), less full shade (3 h) |
///
/// Every range is checked against ``CarePlausibility`` first: one outside its bounds, or with its ends the wrong
/// way round, gives no field and a note in `discardedValues`, as does a field sent with the wrong type.
/// | family, genus | `category` "Family, Genus" | when it has that form |
/// | common names | `common_names` | English ones as common names; all in the localized list |
/// | soil, notes | `soil`, `watering`, `sunlight`, `pruning`, `fertilization` (with `include=care`) | as text |
public enum OpenPlantbookMapping {
    private static let provider = "Open Plantbook"

    public static func careInfo(from plant: OpenPlantbookPlant, fetchedAt: Date) -> CareInfo {
        let name = ScientificName(plant.displayPid ?? plant.pid)
        var care = CareInfo(scientificName: name?.canonical ?? plant.pid, genus: name?.genus ?? "", source: .openPlantbook, fetchedAt: fetchedAt)
        var supplied: Set<CareField> = []
        let names = (plant.commonNames ?? []).filter { !$0.name.trimmingCharacters(in: .whitespaces).isEmpty }
        if !names.isEmpty {
            care.localizedCommonNames = names.map { LocalizedName(name: $0.name, language: $0.languageCode ?? "") }
            care.commonNames = names.filter { $0.languageCode == "en" }.map(\.name)
            if !care.commonNames.isEmpty { supplied.insert(.commonNames) }
        }
        if let (family, genus) = familyAndGenus(plant.category) {
            care.family = family
            care.genus = genus
            supplied.formUnion([.family, .genus])
        }
        var discarded = plant.unreadableFields.sorted { $0.key < $1.key }.map { CarePlausibility.unreadable(provider, $0.key, $0.value) }
        func checked(_ minimum: Double?, _ maximum: Double?, _ what: String, _ bounds: ClosedRange<Double>, _ unit: String,
                     strictlyOrdered: Bool = false) -> (minimum: Double?, maximum: Double?)? {
            switch CarePlausibility.check(minimum, maximum, within: bounds, unit: unit, strictlyOrdered: strictlyOrdered) {
            case .absent: return nil
            case .plausible(let minimum, let maximum): return (minimum, maximum)
            case .implausible(let reason):
                discarded.append(CarePlausibility.note(provider, what, reason))
                return nil
            }
        }
        if let range = checked(plant.minTemp, plant.maxTemp, "temperature range", CarePlausibility.celsius, "°C", strictlyOrdered: true) {
            care.temperature = TrefleCareMapping.temperature(minimum: range.minimum, maximum: range.maximum)
            supplied.insert(.temperature)
        }
        if let range = checked(plant.minEnvHumid, plant.maxEnvHumid, "humidity range", CarePlausibility.percent, "%"),
           let humidity = humidity(minimum: range.minimum, maximum: range.maximum) {
            care.humidity = humidity
            supplied.insert(.humidity)
        }
        let lux = checked(plant.minLightLux, plant.maxLightLux, "light range", CarePlausibility.lux, "lux")
        if let light = light(maximumLux: lux?.maximum) {
            care.light = light
            supplied.insert(.light)
        }
        let soilMoisture = checked(plant.minSoilMoist, plant.maxSoilMoist, "soil moisture range", CarePlausibility.percent, "%")
        if let soil = plant.soil?.trimmingCharacters(in: .whitespacesAndNewlines), !soil.isEmpty {
            care.soil = soil
            supplied.insert(.soil)
        }
        care.notes = notes(plant, lux: lux, soilMoisture: soilMoisture)
        care.discardedValues = discarded.isEmpty ? nil : discarded
        care.fieldSources = Dictionary(uniqueKeysWithValues: supplied.map { ($0, .openPlantbook) })
        return care
    }

    /// "Aceraceae, Acer" → family and genus; nil for any other form ("boom").
    static func familyAndGenus(_ category: String?) -> (String, String)? {
        let parts = (category ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, parts[0].hasSuffix("aceae"), let genus = parts.last, genus.first?.isUppercase == true,
              !genus.contains(" ") else { return nil }
        return (parts[0], genus)
    }

    static func humidity(minimum: Double?, maximum: Double?) -> HumidityLevel? {
        let known = [minimum, maximum].compactMap { $0 }
        guard !known.isEmpty else { return nil }
        let mean = known.reduce(0, +) / Double(known.count)
        return mean < 40 ? .low : mean <= 65 ? .medium : .high
    }

    static func light(maximumLux: Double?) -> LightRequirement? {
        switch maximumLux {
        case nil: nil
        case .some(40_000...): LightRequirement(level: .fullSun, hoursPerDay: 8)
        case .some(12_000...): LightRequirement(level: .partialSun, hoursPerDay: 6)
        case .some(4_000...): LightRequirement(level: .partialShade, hoursPerDay: 4)
        case .some: LightRequirement(level: .fullShade, hoursPerDay: 3)
        }
    }

    /// The measured ranges a sensor user wants, and the care texts.
    static func notes(_ plant: OpenPlantbookPlant, lux: (minimum: Double?, maximum: Double?)?,
                      soilMoisture: (minimum: Double?, maximum: Double?)?) -> [String] {
        var notes: [String] = []
        if let low = soilMoisture?.minimum, let high = soilMoisture?.maximum {
            notes.append(String(format: "Soil moisture %g–%g %% (Open Plantbook, as a sensor reads it).", low, high))
        }
        if let low = lux?.minimum, let high = lux?.maximum {
            notes.append(String(format: "Light %g–%g lux (Open Plantbook).", low, high))
        }
        let texts: [(String, String?)] = [("Watering", plant.watering), ("Light", plant.sunlight), ("Pruning", plant.pruning),
                                          ("Feeding", plant.fertilization)]
        for case let (label, text?) in texts {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { notes.append("\(label): \(trimmed)") }
        }
        return notes
    }
}
