import PlantGuideProtos

/// Statistics as both backends fill them.
extension Plantguide_Collection_V1_GetStatisticsResponse {
    /// Counts `plants` under their family's name ("unknown" for none).
    mutating func count(family: String, plants: UInt64) {
        plantsPerFamily[family.isEmpty ? "unknown" : family] = plants
    }

    /// Counts `plants` under their identification source's name.
    mutating func count(source: Int, plants: UInt64) {
        plantsPerSource[PlantStore.sourceName(.init(rawValue: source) ?? .unspecified)] = plants
    }
}
