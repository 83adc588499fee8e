import PlantGuideCore
import Testing

@Suite("CommonName")
struct CommonNameTests {
    @Test("a name alone: no bracketed label, no trailing note, no extra spaces", arguments: [
        ("European mountain ash", "European mountain ash"),
        ("Basil (sweet)", "Basil"),
        ("Tomato [cultivated]", "Tomato"),
        ("Garden sage (herb) [Europe]", "Garden sage"),
        ("Swiss chard - leaf beet", "Swiss chard"),
        ("  Fiddle-leaf   fig ", "Fiddle-leaf fig"),
    ])
    func display(raw: String, shown: String) {
        #expect(CommonName.display(raw) == shown)
    }

    @Test("a name that was only a label is dropped; repeats go, the first spelling stays")
    func lists() {
        #expect(CommonName.display("(unnamed)") == nil)
        #expect(CommonName.display(["Basil (sweet)", "basil", "(cultivar)", "Sweet basil"]) == ["Basil", "Sweet basil"])
    }

    @Test("a Trefle record's common names are shown so")
    func trefleRecord() throws {
        var species = TrefleSpecies(id: 1, scientificName: "Ocimum basilicum")
        species.commonName = "Basil (sweet)"
        species.commonNames = ["en": ["Sweet basil", "basil [herb]"]]
        #expect(species.englishCommonNames == ["Basil", "Sweet basil"])
    }
}
