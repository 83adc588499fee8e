import PlantGuideCore

/// The species a name asked for stands for, and what GBIF said of it.
struct NameResolution: Sendable {
    /// The accepted name to ask the providers and the catalog for.
    var name: ScientificName
    /// GBIF's family and genus of it, when GBIF matched the name.
    var gbif: CareInfo?
    /// How the name was read, when it was not taken as written: "“Swiss cheese plant” is Monstera deliciosa (catalog)".
    var note: String?
    /// GBIF's lookup, when GBIF was asked (its expiry bounds how long the answer may be kept).
    var lookup: CareInfoProvider.Lookup?
}
