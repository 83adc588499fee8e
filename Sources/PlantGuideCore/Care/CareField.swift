/// The parts of a ``CareInfo`` that can each come from a different source: the keys of
/// ``CareInfo/fieldSources``, spelt as the fields of the wire message.
public enum CareField: String, Hashable, Sendable, Codable, CaseIterable, CodingKeyRepresentable {
    case commonNames = "common_names"
    case family
    case genus
    case habit
    case light
    case watering
    case temperature
    case fertilizer
    case humidity
    case soil
    case growthRate = "growth_rate"
    case bloomingSeasons = "blooming_seasons"
    case toxicity
    case harvest

    /// The field in a sentence: "growth rate".
    public var words: String {
        switch self {
        case .commonNames: "common names"
        case .growthRate: "growth rate"
        case .bloomingSeasons: "blooming seasons"
        case .fertilizer: "feeding"
        default: rawValue
        }
    }
}

/// A common name in one language.
public struct LocalizedName: Hashable, Sendable, Codable {
    public var name: String
    /// An ISO 639-1 code: "en", "ru".
    public var language: String

    public init(name: String, language: String) {
        self.name = name
        self.language = language
    }
}
