import CareData
import PlantGuideCore
import Testing

@Suite("The offline catalog")
struct CareCatalogTests {
    @Test("ships at least 150 species across every category, with complete care data")
    func contents() throws {
        let catalog = try CareCatalog.bundled()

        #expect(catalog.species.count >= 150)
        let categories = Dictionary(grouping: catalog.species, by: \.category).mapValues(\.count)
        for category in ["house", "balcony", "garden", "herb", "vegetable"] { #expect(categories[category, default: 0] >= 10) }
        let names = catalog.species.map(\.care.scientificName)
        #expect(Set(names).count == names.count, "no species twice")
        for species in catalog.species {
            #expect(!species.care.commonNames.isEmpty && !species.care.family.isEmpty)
            #expect(species.care.temperature.minimumCelsius < species.care.temperature.maximumCelsius)
            #expect(!species.care.fertilizer.activeMonths.isEmpty)
            #expect(species.care.source == .catalog)
        }
    }

    @Test("search by common name, scientific prefix and family, ignoring case and accents")
    func search() throws {
        let catalog = try CareCatalog.bundled()

        #expect(catalog.search("swiss cheese").map(\.scientificName).contains("Monstera deliciosa"))
        #expect(catalog.search("mon").first?.scientificName.hasPrefix("Monstera") == true)
        #expect(catalog.search("LAMIACEAE").count >= 8)
        #expect(catalog.search("Búrro").first?.scientificName == "Sedum morganianum")
        #expect(catalog.search("zzzz").isEmpty)
    }

    @Test("lookups accept any spelling of the name; the genus stands in for unknown species")
    func lookups() throws {
        let catalog = try CareCatalog.bundled()

        #expect(catalog.care(for: "citrus x LIMON")?.scientificName == "Citrus × limon")
        #expect(catalog.care(forGenus: "Ficus") != nil)
        #expect(catalog.care(for: "Ficus unknownii") == nil)
    }

    @Test("a malformed line is an error naming the line", arguments: [
        ("Rosa canina|Dog rose|Rosaceae|garden|SUN|W|M|-20|30|M|M|K|4-8|su|M|N|LOAM", "expected 18 fields"),
        ("Rosa canina|Dog rose|Rosaceae|garden|MOON|W|M|-20|30|M|M|K|4-8|su|M|N|LOAM|", "unknown light 'MOON'"),
        ("Rosa canina|Dog rose|Rosaceae|garden|SUN|W|M|30|-20|M|M|K|4-8|su|M|N|LOAM|", "not below the maximum"),
        ("Rosa canina|Dog rose|Rosaceae|garden|SUN|W|M|-20|30|M|M|K|4|su|M|N|LOAM|", "FIRST-LAST"),
    ])
    func malformed(line: String, message: String) {
        let error = #expect(throws: CatalogError.self) { try CareCatalog(parsing: "# header\n" + line) }
        #expect(error?.line == 2)
        #expect(error?.description.contains(message) == true)
    }
}
