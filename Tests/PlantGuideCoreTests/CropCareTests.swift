import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import Testing

/// The Trefle records of a leaf crop, a fruit crop, a root crop, a herb and a houseplant (the fixtures'
/// README says where they come from), mapped field by field against the crop rules.
@Suite("Crops and herbs: fed by what is harvested, picked on time, no houseplant defaults")
struct CropCareTests {
    private let fetched = Date(timeIntervalSince1970: 1_790_000_000)

    private func care(_ slug: String) throws -> CareInfo {
        let species = try JSONDecoder.trefle.decode(TrefleEnvelope<TrefleSpecies>.self, from: Fixtures.trefle("species-" + slug)).data
        return TrefleCareMapping.careInfo(from: species, fetchedAt: fetched)
    }

    private let keepAway = "keep away from pets and small children"

    @Test("lettuce, a leaf crop: nitrogen-rich feed in its growing months, its own cool-season temperatures")
    func leafCrop() throws {
        let care = try care("lactuca-sativa")

        #expect(care.harvest == Harvest(crop: .leaf, edibleParts: ["leaves"], daysToHarvest: 55, months: Array(5...9)))
        #expect(care.fertilizer == FertilizerSchedule(frequency: .biweekly, type: .highNitrogen, activeMonths: Array(3...9)))
        #expect(care.temperature.minimumCelsius == -2 && care.temperature.maximumCelsius == 25 && care.temperature.isFrostTolerant)
        #expect(care.toxicity == .none)
        #expect(care.commonNames.first == "Garden lettuce")
        #expect(care.notes.contains("Sowing: Sow thinly, 1 cm deep, every three weeks from March to August for a steady supply."))
        #expect(care.notes.contains("Space plants 25 cm apart, in rows 30 cm apart."))
        #expect(!care.notes.contains { $0.contains(keepAway) || $0.contains("no data") })
    }

    @Test("tomato, a fruit crop: potassium from flowering, picked in its fruiting months, only the fruit eaten")
    func fruitCrop() throws {
        let care = try care("solanum-lycopersicum")

        #expect(care.harvest == Harvest(crop: .fruit, edibleParts: ["fruits"], daysToHarvest: 70, months: [7, 8, 9]))
        // Nutriments 7: every two weeks, from the first flowering month (June) to the end of growth and fruiting.
        #expect(care.fertilizer == FertilizerSchedule(frequency: .biweekly, type: .highPotassium, activeMonths: [6, 7, 8, 9]))
        #expect(care.temperature.minimumCelsius == 10 && care.temperature.maximumCelsius == 32)
        #expect(care.toxicity == .low)
        #expect(care.notes.contains {
            $0.contains("Only the fruits are eaten") && $0.contains("rated low toxicity") && $0.contains("other parts from children")
        })
        #expect(!care.notes.contains { $0.contains(keepAway) || $0.contains("no data") })
    }

    @Test("carrot, a root crop: little nitrogen, frost-hardy, and the fields Trefle lacks are named")
    func rootCrop() throws {
        let care = try care("daucus-carota")

        #expect(care.harvest == Harvest(crop: .root, edibleParts: ["roots"], daysToHarvest: 75, months: [7, 8, 9, 10]))
        #expect(care.fertilizer == FertilizerSchedule(frequency: .monthly, type: .lowNitrogen, activeMonths: Array(4...10)))
        #expect(care.temperature.minimumCelsius == -5 && care.temperature.isFrostTolerant)
        #expect(care.commonNames.first == "Carrot")  // "Carrot (cultivated)" without its label
        #expect(care.notes.contains("Trefle has no data for air humidity, growth rate."))
        #expect(care.humidity == .medium && care.growthRate == .moderate)
    }

    @Test("basil, a herb: light feeding; edible, so no default warning, and its unknown toxicity is said plainly")
    func herb() throws {
        let care = try care("ocimum-basilicum")

        #expect(care.harvest == Harvest(crop: .herb, edibleParts: ["leaves"], daysToHarvest: 60, months: [7, 8, 9]))
        #expect(care.fertilizer == FertilizerSchedule(frequency: .monthly, type: .highNitrogen, activeMonths: Array(5...9)))
        #expect(care.toxicity == .unknown)
        #expect(care.notes.contains("Grown to be eaten (the leaves); how toxic the rest of the plant is to pets is not recorded."))
        #expect(!care.notes.contains { $0.contains(keepAway) })
        #expect(care.notes.contains("Trefle has no data for toxicity."))
    }

    @Test("pothos, a houseplant: today's rules, no harvest, and every defaulted field named")
    func houseplant() throws {
        let care = try care("epipremnum-aureum")

        #expect(care.harvest == nil)
        #expect(care.fertilizer == FertilizerSchedule(frequency: .monthly, type: .balancedLiquid, activeMonths: CareDefaults.growingMonths))
        #expect(care.toxicity == .medium)
        #expect(!care.notes.contains { $0.contains(keepAway) })
        #expect(care.notes.contains("Trefle has no data for dormant season, feeding months."))
    }

    @Test("kind from what is eaten: fruit or seed first, then root, tuber or bulb, then leaves; herbs by family or flag")
    func kinds() {
        #expect(CropCare.kind(edibleParts: ["roots", "leaves"], vegetable: true, family: "Amaranthaceae") == .root)
        #expect(CropCare.kind(edibleParts: ["leaves", "seeds"], vegetable: true, family: "Apiaceae") == .fruit)
        #expect(CropCare.kind(edibleParts: ["Tubers"], vegetable: true, family: "Solanaceae") == .root)
        #expect(CropCare.kind(edibleParts: ["leaves"], vegetable: true, family: "Lamiaceae") == .herb)
        #expect(CropCare.kind(edibleParts: ["leaves"], vegetable: false, family: "Apiaceae") == .herb)
        #expect(CropCare.kind(edibleParts: ["leaves", "flowers"], vegetable: true, family: "Brassicaceae") == .leaf)
        #expect(CropCare.kind(edibleParts: [], vegetable: true, family: "Rosaceae") == nil)
    }

    @Test("herbs of lean soils are not fed; root crops and herbs at most monthly; leaf and fruit crops as the soil says",
          arguments: [
              (CropKind.herb, 2, FertilizerFrequency.none), (.herb, 9, .monthly), (.root, 9, .monthly), (.root, 1, .quarterly),
              (.leaf, 9, .weekly), (.fruit, 6, .biweekly), (.leaf, nil, .monthly),
          ] as [(CropKind, Int?, FertilizerFrequency)])
    func frequencies(kind: CropKind, nutriments: Int?, expected: FertilizerFrequency) {
        #expect(CropCare.frequency(kind, nutriments: nutriments) == expected)
    }

    @Test("harvest months: the fruiting months, else the growing months from the days to harvest; none without days")
    func harvestMonths() {
        #expect(CropCare.harvestMonths(growth: [4, 5, 6, 7, 8, 9], fruit: [8, 9], daysToHarvest: nil) == [8, 9])
        #expect(CropCare.harvestMonths(growth: [3, 4, 5, 6, 7], fruit: [], daysToHarvest: 240) == [7])  // garlic: the last month
        #expect(CropCare.harvestMonths(growth: [], fruit: [], daysToHarvest: 28) == Array(4...9))  // default season from April
        #expect(CropCare.harvestMonths(growth: [4, 5, 6], fruit: [], daysToHarvest: nil).isEmpty)
    }

    @Test("°F alone is converted; edible_part as '|'-separated text is read")
    func decoding() throws {
        let json = Data("""
            {"id": 1, "scientific_name": "Spinacia oleracea", "edible_part": "leaves|stem", "vegetable": true,
             "growth": {"minimum_temperature": {"deg_f": 14, "deg_c": null}, "maximum_temperature": {"deg_f": 75}}}
            """.utf8)
        let species = try JSONDecoder.trefle.decode(TrefleSpecies.self, from: json)
        let care = TrefleCareMapping.careInfo(from: species, fetchedAt: fetched)

        #expect(species.edibleParts == ["leaves", "stem"])
        #expect(care.harvest?.crop == .leaf)
        #expect(care.temperature.minimumCelsius == -10 && care.temperature.maximumCelsius == 23.9)
        #expect(!care.notes.contains { $0.contains("minimum temperature") || $0.contains("maximum temperature") })
    }
}
