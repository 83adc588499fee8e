import CareData
import Foundation
import PlantGuideCore
import PlantGuideTestSupport
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

    @Test("every herb and vegetable is a crop fed by the crop rules; nothing else is")
    func cropsFollowTheRules() throws {
        let catalog = try CareCatalog.bundled()

        for species in catalog.species {
            let isCrop = species.category == "herb" || species.category == "vegetable"
            #expect((species.care.harvest != nil) == isCrop, "\(species.care.scientificName)")
            if let harvest = species.care.harvest {
                #expect(CropCare.agrees(species.care.fertilizer, with: harvest.crop), "\(species.care.scientificName)")
                #expect(!species.care.notes.contains { $0.contains("keep away from pets and small children") })
            }
        }
        let tomato = try #require(catalog.care(for: "Solanum lycopersicum"))
        #expect(tomato.harvest == Harvest(crop: .fruit, edibleParts: ["fruits"], daysToHarvest: 70, months: [7, 8, 9]))
        #expect(tomato.notes.contains { $0.hasPrefix("Only the fruits are eaten; the plant is rated low toxicity") })
        let carrot = try #require(catalog.care(for: "Daucus carota"))
        #expect(carrot.harvest?.months == [7, 8, 9])  // 75 days from April, in the active months April–September
    }

    @Test("the catalog and Trefle give a crop the same kind of advice", arguments: [
        "lactuca-sativa", "solanum-lycopersicum", "daucus-carota", "ocimum-basilicum",
    ])
    func agreesWithTrefle(slug: String) throws {
        let species = try JSONDecoder.trefle.decode(TrefleEnvelope<TrefleSpecies>.self, from: Fixtures.trefle("species-" + slug)).data
        let trefle = TrefleCareMapping.careInfo(from: species, fetchedAt: Date())
        let catalog = try #require(try CareCatalog.bundled().care(for: species.scientificName))

        #expect(catalog.harvest?.crop == trefle.harvest?.crop)
        #expect(catalog.fertilizer.type == trefle.fertilizer.type)
        #expect(catalog.harvest?.edibleParts == trefle.harvest?.edibleParts)
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
        ("Rosa canina|Dog rose|Rosaceae|garden|SUN|W|M|-20|30|M|M|K|4-8|su|M|N|LOAM|-", "expected 19 fields"),
        ("Rosa canina|Dog rose|Rosaceae|garden|MOON|W|M|-20|30|M|M|K|4-8|su|M|N|LOAM|-|", "unknown light 'MOON'"),
        ("Rosa canina|Dog rose|Rosaceae|garden|SUN|W|M|30|-20|M|M|K|4-8|su|M|N|LOAM|-|", "not below the maximum"),
        ("Rosa canina|Dog rose|Rosaceae|garden|SUN|W|M|-20|30|M|M|K|4|su|M|N|LOAM|-|", "FIRST-LAST"),
        ("Rosa canina|Dog rose|Rosaceae|garden|SUN|W|M|-20|30|M|M|K|4-8|su|M|N|LOAM|fruits;90;9-10|", "only herbs and vegetables"),
        // The catalog cannot disagree with the crop rules: a root crop fed potash-rich tomato feed fails to load,
        // and so does a herb fed every two weeks or a vegetable without its harvest.
        ("Daucus carota|Carrot|Apiaceae|vegetable|SUN|2W|M|-5|28|M|M|K|4-9|-|M|N|SANDY|roots;75;-|", "a root crop is fed low_nitrogen"),
        ("Ocimum basilicum|Basil|Lamiaceae|herb|SUN|2W|M|12|32|M|BW|N|5-9|su|F|N|STD|leaves;60;-|", "at most monthly"),
        ("Daucus carota|Carrot|Apiaceae|vegetable|SUN|2W|M|-5|28|M|M|LN|4-9|-|M|N|SANDY|-|", "needs its harvest"),
        ("Daucus carota|Carrot|Apiaceae|vegetable|SUN|2W|M|-5|28|M|M|LN|4-9|-|M|N|SANDY|bark;75;-|", "name nothing eaten"),
    ])
    func malformed(line: String, message: String) {
        let error = #expect(throws: CatalogError.self) { try CareCatalog(parsing: "# header\n" + line) }
        #expect(error?.line == 2)
        #expect(error?.description.contains(message) == true)
    }
}
