import Foundation
import PlantGuideCore
import PlantGuideProtos
import SwiftProtobuf

extension Plantguide_Caredata_V1_CareInfo {
    /// The wire form of `care`.
    init(_ care: CareInfo) {
        self.init()
        scientificName = care.scientificName
        commonNames = care.commonNames
        family = care.family
        genus = care.genus
        trefleID = Int64(care.trefleID ?? 0)
        light = .with {
            $0.level = Wire.light[care.light.level] ?? .unspecified
            $0.hoursPerDay = UInt32(care.light.hoursPerDay)
        }
        watering = .with {
            $0.frequency = Wire.watering[care.watering.frequency] ?? .unspecified
            $0.intervalDays = UInt32(care.watering.intervalDays)
            $0.amount = Wire.amount[care.watering.amount] ?? .unspecified
            $0.seasonalAdjustments = care.watering.seasonalAdjustments.sorted { $0.key < $1.key }.map { season, factor in
                .with {
                    $0.season = Wire.season[season] ?? .unspecified
                    $0.intervalMultiplier = factor
                }
            }
        }
        temperature = .with {
            $0.minCelsius = care.temperature.minimumCelsius
            $0.maxCelsius = care.temperature.maximumCelsius
            $0.optimalCelsius = care.temperature.optimalCelsius
            $0.frostTolerant = care.temperature.isFrostTolerant
        }
        fertilizer = .with {
            $0.frequency = Wire.fertilizerFrequency[care.fertilizer.frequency] ?? .unspecified
            $0.type = Wire.fertilizerType[care.fertilizer.type] ?? .unspecified
            $0.activeMonths = care.fertilizer.activeMonths.map(UInt32.init)
        }
        humidity = Wire.humidity[care.humidity] ?? .unspecified
        soil = care.soil
        growthRate = Wire.growth[care.growthRate] ?? .unspecified
        bloomingSeasons = care.bloomingSeasons.map { Wire.season[$0] ?? .unspecified }
        toxicity = Wire.toxicity[care.toxicity] ?? .unspecified
        notes = care.notes
        source = Wire.source[care.source] ?? .unspecified
        fetchedAt = Google_Protobuf_Timestamp(date: care.fetchedAt)
        stale = care.isStale
        fieldSources = Dictionary(uniqueKeysWithValues: (care.fieldSources ?? [:]).map { field, source in
            (field.rawValue, Wire.source[source] ?? .unspecified)
        })
        habit = care.habit.flatMap { Wire.habit[$0] } ?? .unspecified
        localizedCommonNames = (care.localizedCommonNames ?? []).map { name in
            .with {
                $0.name = name.name
                $0.language = name.language
            }
        }
        if let harvest = care.harvest {
            self.harvest = .with {
                $0.crop = Wire.crop[harvest.crop] ?? .unspecified
                $0.edibleParts = harvest.edibleParts
                $0.daysToHarvest = UInt32(clamping: harvest.daysToHarvest ?? 0)
                $0.months = harvest.months.map(UInt32.init)
            }
        }
    }
}

/// Domain enum values to their wire enums.
enum Wire {
    static let light: [LightLevel: Plantguide_Caredata_V1_LightLevel] = [
        .fullShade: .fullShade, .partialShade: .partialShade, .partialSun: .partialSun, .fullSun: .fullSun,
    ]
    static let watering: [WateringFrequency: Plantguide_Caredata_V1_WateringFrequency] = [
        .daily: .daily, .everyOtherDay: .everyOtherDay, .twiceWeekly: .twiceWeekly, .weekly: .weekly,
        .biweekly: .biweekly, .monthly: .monthly,
    ]
    static let amount: [WateringAmount: Plantguide_Caredata_V1_WateringAmount] = [
        .light: .light, .moderate: .moderate, .thorough: .thorough, .soak: .soak,
    ]
    static let season: [Season: Plantguide_Caredata_V1_Season] = [
        .spring: .spring, .summer: .summer, .autumn: .autumn, .winter: .winter,
    ]
    static let fertilizerFrequency: [FertilizerFrequency: Plantguide_Caredata_V1_FertilizerFrequency] = [
        .none: .none, .weekly: .weekly, .biweekly: .biweekly, .monthly: .monthly, .quarterly: .quarterly,
    ]
    static let fertilizerType: [FertilizerType: Plantguide_Caredata_V1_FertilizerType] = [
        .balancedLiquid: .balancedLiquid, .highNitrogen: .highNitrogen, .highPotassium: .highPotassium,
        .slowRelease: .slowRelease, .organic: .organic, .cactus: .cactus, .acid: .acid, .lowNitrogen: .lowNitrogen,
    ]
    static let crop: [CropKind: Plantguide_Caredata_V1_CropKind] = [.leaf: .leaf, .fruit: .fruit, .root: .root, .herb: .herb]
    static let humidity: [HumidityLevel: Plantguide_Caredata_V1_HumidityLevel] = [
        .low: .low, .medium: .medium, .high: .high,
    ]
    static let growth: [GrowthRate: Plantguide_Caredata_V1_GrowthRate] = [.slow: .slow, .moderate: .moderate, .fast: .fast]
    static let toxicity: [Toxicity: Plantguide_Caredata_V1_Toxicity] = [
        .unknown: .unspecified, .none: .none, .low: .low, .medium: .medium, .high: .high,
    ]
    static let source: [CareSource: Plantguide_Caredata_V1_CareSource] = [
        .trefle: .trefle, .cache: .cache, .staleCache: .staleCache, .catalog: .catalog, .default: .default,
        .openPlantbook: .openPlantbook, .perenual: .perenual, .gbif: .gbif,
    ]
    static let habit: [PlantHabit: Plantguide_Caredata_V1_PlantHabit] = [
        .houseplant: .houseplant, .succulent: .succulent, .tree: .tree, .shrub: .shrub, .outdoor: .outdoor,
        .vegetable: .vegetable, .herb: .herb,
    ]
}
