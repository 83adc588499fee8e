import Foundation
import PlantGuideCore

/// Puts one answer together from the records of several sources, field by field: each field from the first source
/// in its order that has it, and the fields none has from the ``CareProfile`` of what the plant is, marked
/// `default`. The answer's `fieldSources` names the source of every field.
///
/// | field | order |
/// |---|---|
/// | family, genus | GBIF, catalog, Trefle, Perenual, Open Plantbook |
/// | light | Trefle, catalog, Perenual, Open Plantbook |
/// | every other field | Trefle, catalog, Open Plantbook, Perenual |
///
/// Why: Trefle's records are per species and numeric; the catalog is written and checked by hand for 171 common
/// species; Open Plantbook's ranges are measured (its light, in lux, is only a threshold, so Perenual's sunlight
/// advice goes first); Perenual's values are coarse categories (watering "Average") or derived (temperature from
/// a hardiness zone). GBIF is the reference for names, family and genus.
enum CareMerge {
    /// The order of sources for `field`, best first.
    static func order(of field: CareField) -> [CareSource] {
        switch field {
        case .family, .genus: [.gbif, .catalog, .trefle, .perenual, .openPlantbook]
        case .light: [.trefle, .catalog, .perenual, .openPlantbook]
        case .habit: [.catalog, .trefle, .perenual, .openPlantbook]
        default: [.trefle, .catalog, .openPlantbook, .perenual]
        }
    }

    /// The answer for `name` from `records` (by the source they came from), or nil when no record knows any care
    /// field (then nothing is known of the plant).
    /// - Parameters:
    ///   - standIn: care of another species of the same genus, for the fields no record has (marked `default`), so
    ///     that a provider that fails changes only the fields it gives.
    static func merge(name: String, records: [CareSource: CareInfo], standIn: CareInfo?, now: Date) -> CareInfo? {
        let careFields = CareField.allCases.filter { ![.commonNames, .family, .genus, .habit].contains($0) }
        guard careFields.contains(where: { field in records.contains { $0.key != .gbif && supplies($0.value, field, as: $0.key) } })
            || standIn != nil
        else { return nil }
        var care = CareInfo(scientificName: name, genus: ScientificName(name)?.genus ?? "", source: .default, fetchedAt: now)
        var sources: [CareField: CareSource] = [:]
        for field in CareField.allCases {
            guard let source = order(of: field).first(where: { source in records[source].map { supplies($0, field, as: source) } ?? false }),
                  let record = records[source] else { continue }
            copy(field, from: record, to: &care)
            sources[field] = source
        }
        let profile = CareProfile.kind(
            habit: care.habit ?? standIn?.habit, family: care.family.isEmpty ? standIn?.family ?? "" : care.family,
            minimumCelsius: sources[.temperature] != nil ? care.temperature.minimumCelsius : standIn?.temperature.minimumCelsius,
            isCrop: care.harvest != nil)
        var defaulted: [CareField] = []
        var borrowed: [CareField] = []
        // Never assumed safe, or edible, from a relative.
        let borrowable = careFields.filter { $0 != .toxicity && $0 != .harvest }
        for field in careFields where sources[field] == nil {
            sources[field] = .default
            if let standIn, borrowable.contains(field) {
                copy(field, from: standIn, to: &care)
                borrowed.append(field)
            } else {
                defaulted.append(field)
            }
        }
        care = profile.fill(care, known: Set(CareField.allCases.filter { !defaulted.contains($0) }))
        if care.family.isEmpty, let family = standIn?.family {  // the relative's family: the genus's
            care.family = family
            sources[.family] = .default
        }
        care.notes = notes(records: records, sources: sources)
        if let standIn, !borrowed.isEmpty {
            let which = borrowed.count == borrowable.count ? "any care" : borrowed.map(\.words).joined(separator: ", ")
            care.notes.insert("No source has \(which) for \(name) itself: this is the care of \(standIn.scientificName), of the same genus.",
                              at: 0)
        }
        let unknown = defaulted.filter { ![.harvest, .bloomingSeasons, .toxicity].contains($0) }
        if !unknown.isEmpty {
            care.notes.append("Not known from any source, so typical of a \(profile.rawValue): "
                              + unknown.map(\.words).joined(separator: ", ") + ".")
        }
        care.fieldSources = sources
        care.localizedCommonNames = records[.openPlantbook]?.localizedCommonNames
        care.trefleID = records[.trefle]?.trefleID
        care.fetchedAt = records.values.filter { $0.source != .catalog }.map(\.fetchedAt).min() ?? records[.catalog]?.fetchedAt ?? now
        return care
    }

    /// Whether `record` (from `source`) has `field`: a record of one source without field sources (the catalog,
    /// older cache entries) has every field; a stand-in never counts.
    static func supplies(_ record: CareInfo, _ field: CareField, as source: CareSource) -> Bool {
        guard let fieldSources = record.fieldSources else {
            switch field {
            case .harvest: return record.harvest != nil
            case .habit: return record.habit != nil
            case .commonNames: return !record.commonNames.isEmpty
            case .family: return !record.family.isEmpty
            default: return source != .default
            }
        }
        return fieldSources[field] != nil
    }

    private static func copy(_ field: CareField, from record: CareInfo, to care: inout CareInfo) {
        switch field {
        case .commonNames: care.commonNames = record.commonNames
        case .family: care.family = record.family
        case .genus: care.genus = record.genus.isEmpty ? care.genus : record.genus
        case .habit: care.habit = record.habit
        case .light: care.light = record.light
        case .watering: care.watering = record.watering
        case .temperature: care.temperature = record.temperature
        case .fertilizer: care.fertilizer = record.fertilizer
        case .humidity: care.humidity = record.humidity
        case .soil: care.soil = record.soil
        case .growthRate: care.growthRate = record.growthRate
        case .bloomingSeasons: care.bloomingSeasons = record.bloomingSeasons
        case .toxicity: care.toxicity = record.toxicity
        case .harvest: care.harvest = record.harvest
        }
    }

    /// The notes of every source that gave a field, in the order of sources, without repeats; then the values any
    /// source sent that were not served (``CarePlausibility``), whether or not it gave a field.
    private static func notes(records: [CareSource: CareInfo], sources: [CareField: CareSource]) -> [String] {
        let used = Set(sources.values)
        let order = [CareSource.trefle, .catalog, .openPlantbook, .perenual]
        var notes: [String] = []
        for source in order where used.contains(source) {
            for note in records[source]?.notes ?? [] where !notes.contains(note) { notes.append(note) }
        }
        for source in order {
            for note in records[source]?.discardedValues ?? [] where !notes.contains(note) { notes.append(note) }
        }
        return notes
    }
}
