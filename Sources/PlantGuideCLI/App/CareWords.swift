import Foundation

/// What a person reads in place of the gateway's enum names: `LIGHT_LEVEL_PARTIAL_SUN` is "partial sun",
/// `TASK_TYPE_PEST_CONTROL` "pest control", a monthly balanced liquid feed "monthly, balanced liquid feed".
/// `--json` keeps the names.
enum CareWords {
    /// `value` (an enum name) without its enum's `prefix`, in lower case with spaces; nil when absent or unspecified.
    static func words(_ value: Any?, prefix: String) -> String? {
        guard let name = value as? String, name.hasPrefix(prefix + "_") else { return nil }
        let rest = name.dropFirst(prefix.count + 1)
        guard rest != "UNSPECIFIED" else { return nil }
        return rest.lowercased().replacingOccurrences(of: "_", with: " ")
    }

    /// A task's type: "watering", "pest control".
    static func task(_ type: Any?) -> String { words(type, prefix: "TASK_TYPE") ?? "task" }

    /// How often and how much to water: "every 7 days (weekly), thorough".
    static func watering(_ care: [String: Any]) -> String {
        let watering = care["watering"] as? [String: Any] ?? [:]
        var text = (watering["intervalDays"] as? Int).map { $0 == 1 ? "every day" : "every \($0) days" } ?? "as the soil dries"
        let often: String? = switch watering["frequency"] as? String {
        case "WATERING_FREQUENCY_BIWEEKLY": "every two weeks"
        case let other: words(other, prefix: "WATERING_FREQUENCY")
        }
        if let often { text += " (\(often))" }
        if let amount = words(watering["amount"], prefix: "WATERING_AMOUNT") { text += ", \(amount == "soak" ? "soak it" : amount)" }
        return text
    }

    /// "partial sun, 6 hours a day".
    static func light(_ care: [String: Any]) -> String {
        let light = care["light"] as? [String: Any] ?? [:]
        var text = words(light["level"], prefix: "LIGHT_LEVEL") ?? "not known"
        if let hours = light["hoursPerDay"] as? Int, hours > 0 { text += ", \(hours) hours a day" }
        return text
    }

    /// "monthly, balanced liquid feed, March–September"; "no feeding".
    static func fertilizer(_ care: [String: Any]) -> String {
        let fertilizer = care["fertilizer"] as? [String: Any] ?? [:]
        if fertilizer["frequency"] as? String == "FERTILIZER_FREQUENCY_NONE" { return "no feeding" }
        let often: String? = switch fertilizer["frequency"] as? String {
        case "FERTILIZER_FREQUENCY_BIWEEKLY": "every two weeks"
        case let other: words(other, prefix: "FERTILIZER_FREQUENCY")
        }
        let kind: String? = switch fertilizer["type"] as? String {
        case "FERTILIZER_TYPE_HIGH_NITROGEN": "high-nitrogen feed"
        case "FERTILIZER_TYPE_HIGH_POTASSIUM": "high-potassium feed"
        case "FERTILIZER_TYPE_SLOW_RELEASE": "slow-release feed"
        case "FERTILIZER_TYPE_ACID": "feed for acid-loving plants"
        case "FERTILIZER_TYPE_LOW_NITROGEN": "low-nitrogen feed"
        case let other: words(other, prefix: "FERTILIZER_TYPE").map { $0 + " feed" }
        }
        return [often, kind, months(fertilizer["activeMonths"])].compactMap { $0 }.joined(separator: ", ").nonEmpty ?? "not known"
    }

    /// What a crop gives and when: "the fruits, about 70 days from sowing, picked July–September"; nil for
    /// plants that are not eaten.
    static func harvest(_ care: [String: Any]) -> String? {
        guard let harvest = care["harvest"] as? [String: Any] else { return nil }
        let parts = (harvest["edibleParts"] as? [String]).flatMap { $0.isEmpty ? nil : "the " + $0.joined(separator: " and ") }
        let days = (harvest["daysToHarvest"] as? Int).map { "about \($0) days from sowing" }
        let picked = months(harvest["months"]).map { "picked " + $0 }
        return [parts ?? "a crop", days, picked].compactMap { $0 }.joined(separator: ", ")
    }

    /// Months 1–12 as runs: "March–September", "July, September–October"; nil when there are none.
    static func months(_ value: Any?) -> String? {
        let numbers = Set((value as? [Int] ?? []).filter { (1...12).contains($0) }).sorted()
        guard let first = numbers.first else { return nil }
        if numbers.count == 12 { return "all year" }
        let names = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
                     "December"]
        var runs: [(Int, Int)] = [(first, first)]
        for month in numbers.dropFirst() {
            if month == runs[runs.count - 1].1 + 1 { runs[runs.count - 1].1 = month } else { runs.append((month, month)) }
        }
        return runs.map { $0 == $1 ? names[$0 - 1] : "\(names[$0 - 1])–\(names[$1 - 1])" }.joined(separator: ", ")
    }

    /// "12 to 30 °C"; "-5 to 28 °C, survives frost" (a dash between the two would read as a second minus).
    static func temperature(_ care: [String: Any]) -> String {
        let range = care["temperature"] as? [String: Any] ?? [:]
        func degrees(_ key: String) -> String? { (range[key] as? NSNumber).map { String(format: "%g", $0.doubleValue) } }
        guard let low = degrees("minCelsius"), let high = degrees("maxCelsius") else { return "not known" }
        return "\(low) to \(high) °C" + (range["frostTolerant"] as? Bool == true ? ", survives frost" : "")
    }

    /// Every piece of advice as a table row: what, the advice, where it came from. Harvest, humidity, toxicity,
    /// growth and soil only as far as known.
    static func rows(_ care: [String: Any]) -> [[String]] {
        let rows: [(String, String, String?)] = [
            ("water", "watering", watering(care)), ("light", "light", light(care)), ("feed", "fertilizer", fertilizer(care)),
            ("temperature", "temperature", temperature(care)), ("harvest", "harvest", harvest(care)),
            ("humidity", "humidity", words(care["humidity"], prefix: "HUMIDITY_LEVEL")),
            ("toxicity", "toxicity", words(care["toxicity"], prefix: "TOXICITY")),
            ("growth", "growth_rate", words(care["growthRate"], prefix: "GROWTH_RATE")), ("soil", "soil", (care["soil"] as? String)?.nonEmpty),
        ]
        return rows.compactMap { label, field, value in value.map { [label, $0, origin(care, field)] } }
    }

    /// Where the advice as a whole came from: "Trefle", "the offline catalog".
    static func source(_ value: Any?) -> String {
        switch value as? String {
        case "CARE_SOURCE_CACHE": "PlantGuide's cache of its providers"
        case "CARE_SOURCE_STALE_CACHE": "an old copy (the providers could not be reached)"
        case "CARE_SOURCE_DEFAULT": "general defaults (nothing better is known)"
        case let other: fieldSource(other)
        }
    }

    /// Where one piece of advice came from: "Open Plantbook", "default" (a value no source has).
    static func fieldSource(_ value: Any?) -> String {
        switch value as? String {
        case "CARE_SOURCE_TREFLE": "Trefle"
        case "CARE_SOURCE_OPEN_PLANTBOOK": "Open Plantbook"
        case "CARE_SOURCE_PERENUAL": "Perenual"
        case "CARE_SOURCE_GBIF": "GBIF"
        case "CARE_SOURCE_CATALOG": "the offline catalog"
        case "CARE_SOURCE_DEFAULT": "default"
        default: "unknown"
        }
    }

    /// The source of the field `name` (as the wire names it: "growth_rate"); the answer's own source when the
    /// answer came from one source.
    static func origin(_ care: [String: Any], _ name: String) -> String {
        let sources = care["fieldSources"] as? [String: Any] ?? [:]
        return fieldSource(sources[name] ?? care["source"])
    }
}

extension String {
    /// Nil when empty.
    var nonEmpty: String? { isEmpty ? nil : self }
}
