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

    /// "monthly, balanced liquid feed"; "no feeding".
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
        case let other: words(other, prefix: "FERTILIZER_TYPE").map { $0 + " feed" }
        }
        return [often, kind].compactMap { $0 }.joined(separator: ", ").nonEmpty ?? "not known"
    }

    /// "12–30 °C".
    static func temperature(_ care: [String: Any]) -> String {
        let range = care["temperature"] as? [String: Any] ?? [:]
        func degrees(_ key: String) -> String? { (range[key] as? NSNumber).map { String(format: "%g", $0.doubleValue) } }
        guard let low = degrees("minCelsius"), let high = degrees("maxCelsius") else { return "not known" }
        return "\(low)–\(high) °C" + (range["frostTolerant"] as? Bool == true ? ", survives frost" : "")
    }

    /// Humidity, toxicity, growth and soil, as far as known, as table rows.
    static func more(_ care: [String: Any]) -> [[String]] {
        [("humidity", words(care["humidity"], prefix: "HUMIDITY_LEVEL")), ("toxicity", words(care["toxicity"], prefix: "TOXICITY")),
         ("growth", words(care["growthRate"], prefix: "GROWTH_RATE")), ("soil", (care["soil"] as? String)?.nonEmpty)]
            .compactMap { label, value in value.map { [label, $0] } }
    }

    /// Where the advice came from: "Trefle", "the offline catalog".
    static func source(_ value: Any?) -> String {
        switch value as? String {
        case "CARE_SOURCE_TREFLE", "CARE_SOURCE_CACHE": "Trefle"
        case "CARE_SOURCE_STALE_CACHE": "Trefle, some time ago"
        case "CARE_SOURCE_CATALOG": "the offline catalog"
        case "CARE_SOURCE_DEFAULT": "general defaults (nothing better is known)"
        default: "unknown"
        }
    }
}

extension String {
    /// Nil when empty.
    var nonEmpty: String? { isEmpty ? nil : self }
}
