import Foundation
import PlantGuideCore

/// Reads one line of `catalog.psv` into care info; every code is checked, so a typo fails at load, not in use.
enum CatalogLine {
    static func parse(_ text: String, line: Int) throws -> CareCatalog.Species {
        let fields = text.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        func fail(_ message: String) -> CatalogError { CatalogError(line: line, message: message) }
        guard fields.count == 19 else { throw fail("expected 19 fields, found \(fields.count)") }
        func code<T>(_ index: Int, _ table: [String: T], _ what: String) throws -> T {
            guard let value = table[fields[index]] else { throw fail("unknown \(what) '\(fields[index])'") }
            return value
        }
        func number(_ index: Int, _ what: String) throws -> Double {
            guard let value = Double(fields[index]) else { throw fail("\(what) '\(fields[index])' is not a number") }
            return value
        }
        guard let name = ScientificName(fields[0]) else { throw fail("'\(fields[0])' is not a scientific name") }
        let light = try code(4, lights, "light")
        let frequency = try code(5, waterings, "watering")
        let amount = try code(6, amounts, "amount")
        let minimum = try number(7, "minimum temperature")
        let maximum = try number(8, "maximum temperature")
        guard minimum < maximum else { throw fail("minimum temperature is not below the maximum") }
        let active = try months(fields[12], fail)
        var seasons: [Season] = []
        for season in fields[13] == "-" ? [] : fields[13].split(separator: ",") {
            guard let value = seasonCodes[String(season)] else { throw fail("unknown season '\(season)'") }
            seasons.append(value)
        }
        guard ["house", "balcony", "garden", "herb", "vegetable"].contains(fields[3]) else {
            throw fail("unknown category '\(fields[3])'")
        }
        let harvest = try harvest(fields[17], family: fields[2], category: fields[3], active: active, fail)
        var notes = fields[18].isEmpty ? [] : [fields[18]]
        let toxicity = try code(15, toxicities, "toxicity")
        if let note = CropCare.toxicityNote(edibleParts: harvest?.edibleParts, toxicity: toxicity) { notes.append(note) }
        let fertilizer = FertilizerSchedule(frequency: try code(10, fertilizers, "fertiliser"),
                                            type: try code(11, fertilizerTypes, "fertiliser type"), activeMonths: active)
        if let harvest, !CropCare.agrees(fertilizer, with: harvest.crop) {
            throw fail(CropCare.feedingRule(harvest.crop) + " (CropCare)")
        }
        let care = CareInfo(
            scientificName: name.canonical,
            commonNames: fields[1].split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) },
            family: fields[2], genus: name.genus,
            light: LightRequirement(level: light, hoursPerDay: lightHours[light] ?? 6),
            watering: WateringSchedule(frequency: frequency, amount: amount, seasonalAdjustments: WateringSchedule.dormantAdjustments(growingMonths: active)),
            temperature: TemperatureRange(minimumCelsius: minimum, maximumCelsius: maximum,
                                          optimalCelsius: min(max((minimum + maximum) / 2, 15), 27)),
            fertilizer: fertilizer,
            humidity: try code(9, humidities, "humidity"),
            soil: try code(16, soils, "soil"),
            growthRate: try code(14, growthRates, "growth rate"),
            bloomingSeasons: seasons.sorted(), toxicity: toxicity, notes: notes,
            source: .catalog, fetchedAt: Date(timeIntervalSince1970: 0), harvest: harvest,
            habit: habit(category: fields[3], fertilizer: fertilizer.type))
        return CareCatalog.Species(care: care, category: fields[3])
    }

    /// What the catalog's category says the plant is; a house or balcony plant fed as a cactus is a succulent.
    private static func habit(category: String, fertilizer: FertilizerType) -> PlantHabit {
        switch category {
        case "herb": .herb
        case "vegetable": .vegetable
        case _ where fertilizer == .cactus: .succulent
        case "house": .houseplant
        default: .outdoor
        }
    }

    /// "fruits;70;7-9": a crop's edible parts, days to harvest (or -) and harvest months (or - for the ones
    /// ``CropCare`` derives from the active months); "-" for plants that are not eaten. Only herbs and vegetables
    /// have one, and theirs must name what is eaten.
    private static func harvest(_ text: String, family: String, category: String, active: [Int],
                                _ fail: (String) -> CatalogError) throws -> Harvest? {
        let isCrop = category == "herb" || category == "vegetable"
        guard text != "-" else {
            if isCrop { throw fail("a \(category) needs its harvest (edible parts;days;months)") }
            return nil
        }
        guard isCrop else { throw fail("only herbs and vegetables have a harvest") }
        let parts = text.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw fail("harvest '\(text)' is not PARTS;DAYS;MONTHS") }
        let edible = parts[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let crop = CropCare.kind(edibleParts: edible, vegetable: category == "vegetable", family: family) else {
            throw fail("harvest parts '\(parts[0])' name nothing eaten")
        }
        var days: Int?
        if parts[1] != "-" {
            guard let value = Int(parts[1]), (1...3_650).contains(value) else { throw fail("days to harvest '\(parts[1])' is not 1-3650") }
            days = value
        }
        let picked = parts[2] == "-" ? [] : try months(parts[2], fail)
        return Harvest(crop: crop, edibleParts: edible, daysToHarvest: days,
                       months: CropCare.harvestMonths(growth: active, fruit: picked, daysToHarvest: days))
    }

    /// "3-9" is March to September; "10-4" wraps around the new year.
    private static func months(_ text: String, _ fail: (String) -> CatalogError) throws -> [Int] {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 2, (1...12).contains(parts[0]), (1...12).contains(parts[1]) else {
            throw fail("months '\(text)' are not FIRST-LAST")
        }
        return parts[0] <= parts[1] ? Array(parts[0]...parts[1]) : Array(parts[0]...12) + Array(1...parts[1])
    }

    private static let lights: [String: LightLevel] = ["FS": .fullShade, "PS": .partialShade, "PSU": .partialSun, "SUN": .fullSun]
    private static let lightHours: [LightLevel: Int] = [.fullShade: 3, .partialShade: 4, .partialSun: 6, .fullSun: 8]
    private static let waterings: [String: WateringFrequency] = [
        "D": .daily, "EOD": .everyOtherDay, "2W": .twiceWeekly, "W": .weekly, "BW": .biweekly, "M": .monthly,
    ]
    private static let amounts: [String: WateringAmount] = ["L": .light, "M": .moderate, "T": .thorough, "S": .soak]
    private static let humidities: [String: HumidityLevel] = ["L": .low, "M": .medium, "H": .high]
    private static let fertilizers: [String: FertilizerFrequency] = [
        "N": .none, "W": .weekly, "BW": .biweekly, "M": .monthly, "Q": .quarterly,
    ]
    private static let fertilizerTypes: [String: FertilizerType] = [
        "BAL": .balancedLiquid, "N": .highNitrogen, "K": .highPotassium, "SR": .slowRelease, "ORG": .organic,
        "CAC": .cactus, "ACID": .acid, "LN": .lowNitrogen,
    ]
    private static let seasonCodes: [String: Season] = ["sp": .spring, "su": .summer, "au": .autumn, "wi": .winter]
    private static let growthRates: [String: GrowthRate] = ["S": .slow, "M": .moderate, "F": .fast]
    private static let toxicities: [String: Toxicity] = ["N": .none, "L": .low, "M": .medium, "H": .high, "U": .unknown]
    private static let soils: [String: String] = [
        "STD": "well-drained general-purpose potting mix",
        "CAC": "gritty, fast-draining cactus and succulent mix",
        "AROID": "chunky mix of potting soil, orchid bark and perlite",
        "ORCH": "coarse bark-based orchid mix",
        "ACID": "ericaceous (lime-free, acidic) compost",
        "LOAM": "rich, well-drained garden loam with compost",
        "SANDY": "free-draining sandy or gravelly soil",
        "MOIST": "moisture-retentive, humus-rich compost",
    ]
}
