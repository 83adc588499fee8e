import Foundation

/// The notes of care info mapped from a Trefle record: how it grows and is sown, spacing, edibility and toxicity,
/// and, last, every care field the record was silent on (filled from another source or a default: the answer's
/// field sources say which).
public enum TrefleCareNotes {
    public static func notes(_ species: TrefleSpecies, crop: CropKind?) -> [String] {
        let growth = species.growth ?? TrefleSpecies.Growth()
        var notes: [String] = []
        if let description = growth.description?.trimmed { notes.append(description) }
        if let sowing = growth.sowing?.trimmed { notes.append("Sowing: \(sowing)") }
        if let spacing = spacing(growth) { notes.append(spacing) }
        let eaten = crop != nil || species.edible == true
        if let note = CropCare.toxicityNote(edibleParts: eaten ? species.edibleParts : nil,
                                            toxicity: TrefleCareMapping.toxicity(species.specifications?.toxicity)) {
            notes.append(note)
        }
        let defaulted = defaultedFields(species, crop: crop)
        if !defaulted.isEmpty {
            notes.append("Trefle has no data for \(defaulted.joined(separator: ", ")).")
        }
        return notes
    }

    /// "Space plants 30 cm apart, in rows 45 cm apart." from the spread and row spacing, as far as known.
    static func spacing(_ growth: TrefleSpecies.Growth) -> String? {
        func centimetres(_ value: Double?) -> String? {
            guard let value, value.isFinite, value > 0, value < 10_000 else { return nil }
            return String(format: "%g cm", value.rounded())
        }
        switch (centimetres(growth.spread?.cm), centimetres(growth.rowSpacing?.cm)) {
        case let (spread?, rows?): return "Space plants \(spread) apart, in rows \(rows) apart."
        case let (spread?, nil): return "Space plants \(spread) apart."
        case let (nil, rows?): return "Sow in rows \(rows) apart."
        case (nil, nil): return nil
        }
    }

    /// The care fields the record says nothing about, in the order a person reads them.
    public static func defaultedFields(_ species: TrefleSpecies, crop: CropKind?) -> [String] {
        let growth = species.growth ?? TrefleSpecies.Growth()
        let growthMonths = TrefleCareMapping.months(growth.growthMonths)
        let bloomMonths = TrefleCareMapping.months(growth.bloomMonths)
        let fruitMonths = TrefleCareMapping.months(growth.fruitMonths)
        let feedingMonthsKnown = crop == nil ? !(growthMonths.isEmpty && bloomMonths.isEmpty) : !growthMonths.isEmpty
        let harvestDays = crop == nil ? nil : TrefleCareMapping.daysToHarvest(growth)
        let checks: [(String, Bool)] = [
            ("light", growth.light != nil),
            ("watering frequency", growth.soilHumidity != nil || growth.minimumPrecipitation?.mm != nil
                || growth.maximumPrecipitation?.mm != nil || growth.atmosphericHumidity != nil),
            ("watering amount", growth.soilHumidity != nil),
            ("dormant season", !growthMonths.isEmpty),
            ("air humidity", growth.atmosphericHumidity != nil),
            ("minimum temperature", growth.minimumTemperature?.celsius != nil),
            ("maximum temperature", growth.maximumTemperature?.celsius != nil),
            ("feeding frequency", growth.soilNutriments != nil),
            ("feeding months", feedingMonthsKnown),
            ("harvest months", harvestDays == nil || !fruitMonths.isEmpty || !growthMonths.isEmpty),
            ("soil type", growth.soilTexture != nil),
            ("growth rate", species.specifications?.growthRate != nil),
            ("toxicity", species.specifications?.toxicity != nil),
        ]
        return checks.filter { !$0.1 }.map(\.0)
    }
}

extension String {
    /// Without surrounding white space; nil when nothing is left.
    fileprivate var trimmed: String? {
        let text = trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
