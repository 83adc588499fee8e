import Foundation

/// The bounds a provider's value must lie within to be served as a fact. A value outside them is not served: the
/// field falls to the next source in ``CareMerge``'s order, and the answer's notes name the provider and the value
/// (``PlantGuideCore/CareInfo/discardedValues``). Bounds that are the wrong way round are not repaired: a provider
/// that swapped them may have swapped more, so the range is dropped whole.
///
/// | value | plausible | why |
/// |---|---|---|
/// | temperature (°C) | −60 … 60, minimum below maximum | the hardiest woody plants survive about −60 °C (1) |
/// | relative humidity (%) | 0 … 100, minimum at most maximum | by definition |
/// | soil moisture (%) | 0 … 100, minimum at most maximum | a volumetric share, as Open Plantbook's sensors read it |
/// | illuminance (lux) | 0 … 200,000, minimum at most maximum | direct noon sun is 100,000–130,000 lux (2) |
/// | days between waterings | 1 … 60 | fewer is not a schedule; desert succulents in winter go about two months |
/// | USDA hardiness zone | 1 … 13 | the zones that exist (USDA 2023 map) |
///
/// (1) Larix gmelinii and Betula in Yakutia; no plant tissue survives long above about 60 °C (Larcher,
/// *Physiological Plant Ecology*, 4th ed., ch. 7). (2) At sea level (CIE); nothing under the sky reaches 200,000.
public enum CarePlausibility {
    public static let celsius: ClosedRange<Double> = -60...60
    public static let percent: ClosedRange<Double> = 0...100
    public static let lux: ClosedRange<Double> = 0...200_000
    public static let wateringDays: ClosedRange<Int> = 1...60
    public static let hardinessZone: ClosedRange<Int> = 1...13

    /// A measured range as a provider gave it (either end may be missing), checked.
    public enum RangeCheck: Equatable {
        /// Neither end given.
        case absent
        /// Both given ends within bounds, and in order.
        case plausible(minimum: Double?, maximum: Double?)
        /// Why it is not served, in words: "-300 to 9999 °C is outside -60 to 60 °C".
        case implausible(String)
    }

    /// Checks `minimum` and `maximum` against `bounds`; with `strictlyOrdered`, equal ends are refused too (a
    /// temperature range of 45 to 45 °C is no range).
    public static func check(_ minimum: Double?, _ maximum: Double?, within bounds: ClosedRange<Double>, unit: String,
                             strictlyOrdered: Bool = false) -> RangeCheck {
        guard minimum != nil || maximum != nil else { return .absent }
        let given = "\(words(minimum, unit)) to \(words(maximum, unit))"
        for value in [minimum, maximum].compactMap({ $0 }) where !value.isFinite || !bounds.contains(value) {
            return .implausible("\(given) is outside \(words(bounds.lowerBound, unit)) to \(words(bounds.upperBound, unit))")
        }
        if let minimum, let maximum, strictlyOrdered ? minimum >= maximum : minimum > maximum {
            return .implausible("\(given): the minimum is not below the maximum")
        }
        return .plausible(minimum: minimum, maximum: maximum)
    }

    /// The note of a value not served: "Open Plantbook gave an implausible temperature (…); not used."
    public static func note(_ provider: String, _ what: String, _ reason: String) -> String {
        "\(provider) gave an implausible \(what) (\(reason)); not used."
    }

    /// The note of a field that could not be read: "Open Plantbook sent min_temp as text that is not a number; not used."
    public static func unreadable(_ provider: String, _ field: String, _ what: String) -> String {
        "\(provider) sent \(field) as \(what); not used."
    }

    private static func words(_ value: Double?, _ unit: String) -> String {
        guard let value else { return "?" }
        let number = value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        return unit.isEmpty ? number : "\(number) \(unit)"
    }
}
