/// What an edible plant is grown for, which decides how it is fed (``CropCare``).
public enum CropKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// Leaves or stems: lettuce, spinach, kale.
    case leaf
    /// Fruits or seeds: tomato, bean, squash.
    case fruit
    /// Roots, tubers or bulbs: carrot, potato, onion.
    case root
    /// Culinary herbs cut for their leaves: basil, thyme, mint.
    case herb
}

/// What is harvested from a crop and when.
public struct Harvest: Hashable, Sendable, Codable {
    public var crop: CropKind
    /// The parts people eat, in Trefle's words ("leaves", "fruits", "roots", "tubers", "seeds", "stem", "flowers").
    public var edibleParts: [String]
    /// Days from sowing or planting out to the first harvest; nil when the source does not say (no harvest task).
    public var daysToHarvest: Int?
    /// Months (1–12, northern hemisphere) in which the crop is usually picked.
    public var months: [Int]

    public init(crop: CropKind, edibleParts: [String], daysToHarvest: Int?, months: [Int]) {
        self.crop = crop
        self.edibleParts = edibleParts
        self.daysToHarvest = daysToHarvest
        self.months = months
    }
}

/// The rules for crops and herbs, shared by the Trefle mapping and the offline catalog so that the two never give
/// different kinds of advice for the same crop. Houseplants and ornamentals keep ``TrefleCareMapping``'s rules.
///
/// | crop | feed | how often | months |
/// |---|---|---|---|
/// | leaf | high nitrogen | from soil nutriments | the growing months |
/// | fruit | high potassium | from soil nutriments | from the first flowering month to the end of growth and fruiting |
/// | root | low nitrogen | at most monthly | the growing months |
/// | herb | high nitrogen | at most monthly; none on lean soil (nutriments ≤ 3) | the growing months |
public enum CropCare {
    /// The crop an edible plant is, from what is eaten: fruits or seeds make a fruit crop, else roots, tubers or
    /// bulbs a root crop, else leaves, stems or flowers a leaf crop, which is a herb when it is of the mint family
    /// (Lamiaceae) or not a vegetable. Nil when nothing is eaten.
    public static func kind(edibleParts: [String], vegetable: Bool?, family: String?) -> CropKind? {
        let parts = Set(edibleParts.map { $0.lowercased() })
        if !parts.isDisjoint(with: ["fruits", "fruit", "seeds", "seed"]) { return .fruit }
        if !parts.isDisjoint(with: ["roots", "root", "tubers", "tuber", "bulbs", "bulb"]) { return .root }
        guard !parts.isDisjoint(with: ["leaves", "leaf", "stem", "stems", "flowers", "flower"]) else { return nil }
        return family?.lowercased() == "lamiaceae" || vegetable == false ? .herb : .leaf
    }

    /// The feed a crop gets.
    public static func feed(_ kind: CropKind) -> FertilizerType {
        switch kind {
        case .leaf, .herb: .highNitrogen
        case .fruit: .highPotassium
        case .root: .lowNitrogen
        }
    }

    /// How often: soil nutriments 0–2 quarterly, 3–5 monthly, 6–8 every two weeks, 9–10 weekly (unknown:
    /// monthly); root crops and herbs at most monthly, herbs of lean soils (≤ 3) not at all.
    public static func frequency(_ kind: CropKind, nutriments: Int?) -> FertilizerFrequency {
        let base = FertilizerFrequency(soilNutriments: nutriments)
        let atMostMonthly: FertilizerFrequency = base == .quarterly ? .quarterly : .monthly
        switch kind {
        case .leaf, .fruit: return base
        case .root: return atMostMonthly
        case .herb: return (nutriments ?? 5) <= 3 ? .none : atMostMonthly
        }
    }

    /// Whether `kind` is fed at most monthly (root crops and herbs).
    static func feedsAtMostMonthly(_ kind: CropKind) -> Bool { kind == .root || kind == .herb }

    /// The months to feed in: the growing months (March–September when unknown); a fruit crop from its first
    /// flowering month to the last month it grows, flowers or fruits.
    public static func feedingMonths(_ kind: CropKind, growth: [Int], bloom: [Int], fruit: [Int]) -> [Int] {
        let growing = growth.isEmpty ? CareDefaults.growingMonths : growth
        guard kind == .fruit, let first = bloom.min() else { return growing }
        let last = (growing + bloom + fruit).max() ?? first
        return first <= last ? Array(first...last) : growing
    }

    /// The months to pick in: the fruiting months when known; else, when the days to harvest are known, the
    /// growing months from that many days after the first one (a sowing at the start of the season); else none.
    public static func harvestMonths(growth: [Int], fruit: [Int], daysToHarvest: Int?) -> [Int] {
        if !fruit.isEmpty { return fruit.sorted() }
        guard let days = daysToHarvest else { return [] }
        let growing = (growth.isEmpty ? CareDefaults.growingMonths : growth).sorted()
        guard let first = growing.first, let last = growing.last else { return [] }
        let ready = min(first + (days + 15) / 30, last)
        return growing.filter { $0 >= ready }
    }

    /// What to say about toxicity. A plant not eaten (`edibleParts` nil) whose toxicity is unknown gets the
    /// "keep away" warning; a plant people eat never does: nothing when it is rated not toxic, else which parts are
    /// eaten and how toxic the plant is rated.
    public static func toxicityNote(edibleParts: [String]?, toxicity: Toxicity) -> String? {
        guard let edibleParts else {
            return toxicity == .unknown ? "Toxicity unknown: keep away from pets and small children to be safe." : nil
        }
        let parts = edibleParts.isEmpty ? "the harvested parts" : "the " + edibleParts.joined(separator: " and ")
        switch toxicity {
        case .none: return nil
        case .unknown: return "Grown to be eaten (\(parts)); how toxic the rest of the plant is to pets is not recorded."
        case .low, .medium, .high:
            return "Only \(parts) are eaten; the plant is rated \(toxicity.rawValue) toxicity, so keep its other parts from children "
                + "and the whole plant from pets."
        }
    }

    /// Whether a feeding schedule (of the offline catalog) follows the rules for `kind`: its feed, and for root
    /// crops and herbs no feeding more often than monthly.
    public static func agrees(_ schedule: FertilizerSchedule, with kind: CropKind) -> Bool {
        guard schedule.type == feed(kind) else { return false }
        return !feedsAtMostMonthly(kind) || ![.weekly, .biweekly].contains(schedule.frequency)
    }

    /// The rule ``agrees(_:with:)`` checks, in words: "a root crop is fed low_nitrogen, at most monthly".
    public static func feedingRule(_ kind: CropKind) -> String {
        "a \(kind.rawValue) crop is fed \(feed(kind).rawValue)" + (feedsAtMostMonthly(kind) ? ", at most monthly" : "")
    }
}
