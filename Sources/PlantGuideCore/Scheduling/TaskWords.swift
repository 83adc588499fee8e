/// How a reminder of a task begins, in each language PlantGuide speaks: "Water" Monty, "Regar" Monty. The web app
/// (its Today page and live reminders) and the Web Push notifications word tasks from this one table, so that a
/// notification reads as the app around it does.
public enum TaskWords {
    /// The languages it has; English is the fallback.
    public static let languages = ["en", "es"]

    /// The phrase before the plant's name for a task of `kind` (nil: a kind this build does not know).
    public static func phrase(_ kind: CareTaskKind?, language: String) -> String {
        phrase(key: kind.map(key) ?? "other", language: language)
    }

    /// The phrase of a key of ``keys`` ("pestControl", "other").
    public static func phrase(key: String, language: String) -> String {
        let table = phrases[language] ?? phrases["en"]!
        return table[key] ?? table["other"]!
    }

    /// What a reminder says: "Water Monty", "Revisar plagas de Monty".
    public static func reminder(_ kind: CareTaskKind?, plant: String, language: String) -> String {
        "\(phrase(kind, language: language)) \(plant)"
    }

    /// The language of ``languages`` that a BCP 47 tag asks for ("es-MX" → "es"); English when none fits.
    public static func language(for tag: String) -> String {
        let primary = tag.prefix { $0 != "-" && $0 != "_" }.lowercased()
        return languages.contains(primary) ? primary : "en"
    }

    /// The key of `kind` in the tables, as the web app's catalogs name it after "task." ("pestControl").
    public static func key(_ kind: CareTaskKind) -> String {
        kind == .pestControl ? "pestControl" : kind.rawValue
    }

    /// Every key: each kind's, and "other".
    public static var keys: [String] { CareTaskKind.allCases.map(key) + ["other"] }

    private static let phrases: [String: [String: String]] = [
        "en": [
            "watering": "Water", "fertilizing": "Fertilise", "pruning": "Prune", "repotting": "Repot",
            "pestControl": "Check for pests on", "rotation": "Turn", "harvest": "Harvest", "other": "Look after",
        ],
        "es": [
            "watering": "Regar", "fertilizing": "Abonar", "pruning": "Podar", "repotting": "Trasplantar",
            "pestControl": "Revisar plagas de", "rotation": "Girar", "harvest": "Cosechar", "other": "Cuidar",
        ],
    ]
}
