import PlantGuideCore
import Testing

@Suite("ScientificName")
struct ScientificNameTests {
    @Test("normalises case, spacing and drops authors", arguments: [
        ("Monstera deliciosa", "Monstera deliciosa"),
        ("monstera  Deliciosa Liebm.", "Monstera deliciosa"),
        ("  FICUS LYRATA  ", "Ficus lyrata"),
        ("Sorbus aucuparia L.", "Sorbus aucuparia"),
        ("Philodendron hederaceum (Jacq.) Schott", "Philodendron hederaceum"),
        ("Ficus elastica var. variegata", "Ficus elastica var. variegata"),
        ("Citrus x limon", "Citrus × limon"),
        ("Epipremnum aureum 'Marble Queen'", "Epipremnum aureum 'Marble Queen'"),
        ("Rosa", "Rosa"),
    ])
    func normalises(raw: String, canonical: String) throws {
        let name = try #require(ScientificName(raw))
        #expect(name.canonical == canonical)
        #expect(name.genus == canonical.split(separator: " ").first.map(String.init))
    }

    @Test("equal after normalisation, so it can key a cache")
    func equality() {
        #expect(ScientificName("monstera deliciosa") == ScientificName("Monstera Deliciosa Liebm."))
    }

    @Test("no name in the input gives nil", arguments: ["", "   ", "123", "--"])
    func rejects(raw: String) {
        #expect(ScientificName(raw) == nil)
    }
}
