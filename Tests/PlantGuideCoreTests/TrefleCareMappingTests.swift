import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import Testing

@Suite("Trefle records to care info")
struct TrefleCareMappingTests {
    private let fetched = Date(timeIntervalSince1970: 1_790_000_000)

    private func growth(_ build: (inout TrefleSpecies.Growth) -> Void) -> TrefleSpecies.Growth {
        var growth = TrefleSpecies.Growth()
        build(&growth)
        return growth
    }

    @Test("the real Sorbus aucuparia record maps field by field")
    func sorbusAucuparia() throws {
        let species = try JSONDecoder.trefle.decode(
            TrefleEnvelope<TrefleSpecies>.self, from: Fixtures.trefle("species-sorbus-aucuparia")).data

        let care = TrefleCareMapping.careInfo(from: species, fetchedAt: fetched)

        #expect(care.scientificName == "Sorbus aucuparia")
        #expect(care.commonNames.first == "European mountain ash")
        #expect(care.family == "Rosaceae" && care.genus == "Sorbus")
        #expect(care.trefleID == 183086)
        #expect(care.light == LightRequirement(level: .fullSun, hoursPerDay: 8))  // light 7
        #expect(care.watering.frequency == .twiceWeekly)  // no soil humidity; precipitation 711–1524 mm
        #expect(care.watering.amount == .moderate)  // soil humidity null
        #expect(care.humidity == .medium)  // atmospheric humidity 5
        #expect(care.temperature.minimumCelsius == -36 && care.temperature.isFrostTolerant)
        #expect(care.fertilizer.frequency == .monthly && care.fertilizer.type == .balancedLiquid)  // nutriments 3
        #expect(care.fertilizer.activeMonths == Array(3...9))
        #expect(care.soil == "loamy, well-drained potting mix, pH 5.5–7.5")  // texture 4
        #expect(care.growthRate == .fast)  // "Rapid"
        #expect(care.toxicity == .none)
        #expect(care.source == .trefle && care.fetchedAt == fetched && !care.isStale)
    }

    @Test("a plant's main_species with every growth field null gets the documented defaults, and says so")
    func sparseRecord() throws {
        let plant = try JSONDecoder.trefle.decode(TrefleEnvelope<TreflePlant>.self, from: Fixtures.trefle("plant-show")).data
        let species = try #require(plant.mainSpecies)

        let care = TrefleCareMapping.careInfo(from: species, fetchedAt: fetched)

        #expect(care.light == .default)
        #expect(care.watering.frequency == .weekly && care.watering.amount == .moderate)
        #expect(care.watering.seasonalAdjustments == [.winter: 2])
        #expect(care.temperature == .default)
        #expect(care.fertilizer == .default)
        #expect(care.humidity == .medium)
        #expect(care.soil == CareDefaults.soil)
        #expect(care.bloomingSeasons.isEmpty)
        #expect(care.harvest == nil)
        #expect(care.notes.contains(
            "Trefle has no data for light, watering frequency, watering amount, dormant season, air humidity, minimum temperature, "
                + "maximum temperature, feeding frequency, feeding months, soil type, growth rate, toxicity."))
    }

    @Test("light 0–10 to four levels", arguments: [
        (0, LightLevel.fullShade), (2, .fullShade), (3, .partialShade), (4, .partialShade), (5, .partialSun),
        (6, .partialSun), (7, .fullSun), (10, .fullSun),
    ])
    func light(scale: Int, level: LightLevel) {
        #expect(TrefleCareMapping.light(scale).level == level)
    }

    @Test("soil humidity decides watering when present", arguments: [
        (0, WateringFrequency.monthly, WateringAmount.light), (3, .biweekly, .moderate), (5, .weekly, .moderate),
        (7, .twiceWeekly, .thorough), (8, .everyOtherDay, .thorough), (10, .daily, .soak),
    ])
    func soilHumidity(value: Int, frequency: WateringFrequency, amount: WateringAmount) {
        let growth = growth {
            $0.soilHumidity = value
            $0.minimumPrecipitation = .init(mm: 100)  // ignored: soil humidity wins
        }
        #expect(TrefleCareMapping.wateringFrequency(growth) == frequency)
        #expect(TrefleCareMapping.wateringAmount(value) == amount)
    }

    @Test("without soil humidity, yearly precipitation decides", arguments: [
        (100.0, WateringFrequency.monthly), (400, .biweekly), (800, .weekly), (1_500, .twiceWeekly), (3_000, .everyOtherDay),
    ])
    func precipitation(mm: Double, frequency: WateringFrequency) {
        #expect(TrefleCareMapping.wateringFrequency(growth { $0.maximumPrecipitation = .init(mm: mm) }) == frequency)
    }

    @Test("with neither, air humidity decides")
    func airHumidity() {
        #expect(TrefleCareMapping.wateringFrequency(growth { $0.atmosphericHumidity = 1 }) == .biweekly)
        #expect(TrefleCareMapping.wateringFrequency(growth { $0.atmosphericHumidity = 5 }) == .weekly)
        #expect(TrefleCareMapping.wateringFrequency(growth { $0.atmosphericHumidity = 9 }) == .twiceWeekly)
    }

    @Test("growth months: water half as often in the seasons without growth, and feed only in growth months")
    func growthMonths() {
        let growth = growth {
            $0.growthMonths = ["apr", "may", "jun", "jul", "aug"]
            $0.bloomMonths = ["jun", "JUL"]
            $0.soilNutriments = 7
        }

        let watering = TrefleCareMapping.watering(growth)
        let fertilizer = TrefleCareMapping.fertilizer(growth)

        #expect(watering.seasonalAdjustments == [.autumn: 2, .winter: 2])
        #expect(fertilizer.activeMonths == [4, 5, 6, 7, 8])
        #expect(fertilizer.frequency == .biweekly && fertilizer.type == .highPotassium)
        #expect(TrefleCareMapping.seasons(ofMonths: TrefleCareMapping.months(growth.bloomMonths)) == [.summer])
    }

    @Test("fertiliser by soil nutriments and pH", arguments: [
        (1, nil, FertilizerFrequency.quarterly, FertilizerType.slowRelease), (4, nil, .monthly, .balancedLiquid),
        (7, nil, .biweekly, .balancedLiquid), (10, nil, .weekly, .highNitrogen), (5, 5.5, .monthly, .acid),
    ] as [(Int, Double?, FertilizerFrequency, FertilizerType)])
    func fertilizer(nutriments: Int, phMaximum: Double?, frequency: FertilizerFrequency, type: FertilizerType) {
        let schedule = TrefleCareMapping.fertilizer(growth {
            $0.soilNutriments = nutriments
            $0.phMaximum = phMaximum
        })
        #expect(schedule.frequency == frequency && schedule.type == type)
        #expect(schedule.activeMonths == CareDefaults.growingMonths)
    }

    @Test("temperatures: each bound defaults alone, the optimum stays between 15 and 27 °C")
    func temperatures() {
        let hardy = TrefleCareMapping.temperature(minimum: -20, maximum: nil)
        #expect(hardy.minimumCelsius == -20 && hardy.maximumCelsius == 30 && hardy.optimalCelsius == 15)
        let tropical = TrefleCareMapping.temperature(minimum: 18, maximum: 35)
        #expect(tropical.optimalCelsius == 26.5 && !tropical.isFrostTolerant)
        #expect(TrefleCareMapping.temperature(minimum: nil, maximum: nil) == .default)
    }

    @Test("toxicity is never assumed: missing or odd values are unknown")
    func toxicity() {
        #expect(TrefleCareMapping.toxicity("high") == .high)
        #expect(TrefleCareMapping.toxicity("None") == .none)
        #expect(TrefleCareMapping.toxicity(nil) == .unknown)
        #expect(TrefleCareMapping.toxicity("deadly") == .unknown)
    }

    @Test("list pages, search pages and error bodies of the real fixtures decode")
    func otherShapes() throws {
        let list = try JSONDecoder.trefle.decode(TreflePage<TrefleSpeciesSummary>.self, from: Fixtures.trefle("plants-list"))
        #expect(list.data.count == 6 && list.meta?.total == 6)
        let search = try JSONDecoder.trefle.decode(TreflePage<TrefleSpeciesSummary>.self, from: Fixtures.trefle("species-search"))
        #expect(search.data.isEmpty && search.meta?.total == 0)
        let error = try JSONDecoder.trefle.decode(TrefleErrorBody.self, from: Fixtures.trefle("error-401"))
        #expect(error.text == "Invalid access token")
    }
}
