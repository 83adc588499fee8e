import PlantGuideRPCCore
import Foundation
import PlantGuideCore
import PlantGuideProtos

extension CareInfo {
    /// The domain care info of a schedule's wire message (the care-data service's answer, passed on by the
    /// gateway). Unspecified values take the domain defaults.
    init(wire: Plantguide_Caredata_V1_CareInfo) {
        let frequency: WateringFrequency = switch wire.watering.frequency {
        case .daily: .daily
        case .everyOtherDay: .everyOtherDay
        case .twiceWeekly: .twiceWeekly
        case .biweekly: .biweekly
        case .monthly: .monthly
        default: .weekly
        }
        var watering = WateringSchedule(frequency: frequency, amount: .moderate)
        // Clamped as well as validated on the way in: a stored schedule from older code must still plan.
        if wire.watering.intervalDays > 0 { watering.intervalDays = Int(min(wire.watering.intervalDays, SchedulingStore.maxIntervalDays)) }
        for adjustment in wire.watering.seasonalAdjustments {
            let season: Season? = switch adjustment.season {
            case .spring: .spring
            case .summer: .summer
            case .autumn: .autumn
            case .winter: .winter
            default: nil
            }
            if let season, adjustment.intervalMultiplier > 0 { watering.seasonalAdjustments[season] = adjustment.intervalMultiplier }
        }
        let fertilizerFrequency: FertilizerFrequency = switch wire.fertilizer.frequency {
        case .none: .none
        case .weekly: .weekly
        case .biweekly: .biweekly
        case .quarterly: .quarterly
        default: .monthly
        }
        let months = wire.fertilizer.activeMonths.map(Int.init).filter { (1...12).contains($0) }
        self.init(
            scientificName: wire.scientificName, commonNames: wire.commonNames, family: wire.family, genus: wire.genus,
            watering: watering,
            fertilizer: FertilizerSchedule(frequency: fertilizerFrequency, type: .balancedLiquid,
                                           activeMonths: months.isEmpty ? CareDefaults.growingMonths : months),
            source: .default, fetchedAt: Date(timeIntervalSince1970: 0), harvest: Harvest(wire: wire))
    }
}

extension Harvest {
    /// The harvest planning reads (a crop with known days to harvest and months); nil when there is none.
    init?(wire care: Plantguide_Caredata_V1_CareInfo) {
        guard care.hasHarvest, care.harvest.daysToHarvest > 0 else { return nil }
        let crop: CropKind = switch care.harvest.crop {
        case .fruit: .fruit
        case .root: .root
        case .herb: .herb
        default: .leaf
        }
        self.init(crop: crop, edibleParts: care.harvest.edibleParts, daysToHarvest: Int(care.harvest.daysToHarvest),
                  months: care.harvest.months.map(Int.init).filter { (1...12).contains($0) })
    }
}

extension SchedulePreferences {
    /// The planning preferences of the wire message; empty fields take the defaults.
    /// - Throws: INVALID_ARGUMENT-worthy `SchedulingError` for an unknown time zone or a bad time.
    init(wire: Plantguide_Scheduling_V1_Preferences) throws {
        self.init()
        if !wire.notifyTime.isEmpty {
            guard let time = LocalTime(parsing: wire.notifyTime) else {
                throw SchedulingError.invalidArgument("preferences.notify_time", .invalidFormat, "notify_time '\(wire.notifyTime)' is not HH:MM")
            }
            notifyTime = time
        }
        if !wire.timeZone.isEmpty {
            guard let zone = TimeZone(identifier: wire.timeZone) else {
                throw SchedulingError.invalidArgument("preferences.time_zone", .unknownValue, "unknown time zone '\(wire.timeZone)'")
            }
            timeZone = zone
        }
        guard wire.avoidWeekdays.allSatisfy({ (1...7).contains($0) }) else {
            throw SchedulingError.invalidArgument("preferences.avoid_weekdays", .outOfRange, "avoid_weekdays are ISO weekdays 1–7")
        }
        avoidWeekdays = Set(wire.avoidWeekdays.map(Int.init))
        guard wire.remindDaysBefore <= 14 else {
            throw SchedulingError.invalidArgument("preferences.remind_days_before", .outOfRange, "remind_days_before is at most 14")
        }
        remindDaysBefore = Int(wire.remindDaysBefore)
        groupWatering = wire.groupWateringDays
        seasonalAdjustment = wire.seasonalAdjustment
        if wire.hasLocation { hemisphere = Hemisphere(latitude: wire.location.latitude) }
    }
}

extension Plantguide_Scheduling_V1_Preferences {
    /// Checks what a caller sends beyond what planning reads (``SchedulePreferences/init(wire:)``): limits that
    /// stored preferences of older versions may exceed and must still be readable with.
    /// - Throws: INVALID_ARGUMENT naming the field.
    func validateLimits() throws {
        guard taskTypes.count <= 32, taskTypes.allSatisfy({ TaskRows.kind($0.type.rawValue) != nil }) else {
            throw SchedulingError.invalidArgument("preferences.task_types", .tooLong, "task_types: at most 32 entries, each of a known task type")
        }
        guard plantNotifications.count <= 10_000, plantNotifications.keys.allSatisfy({ (1...200).contains($0.count) }) else {
            throw SchedulingError.invalidArgument(
                "preferences.plant_notifications", .tooLong, "plant_notifications: at most 10000 plant ids of 1 to 200 characters")
        }
        guard plantTaskTypes.count <= 10_000,
              plantTaskTypes.allSatisfy({ (1...200).contains($0.plantID.count) && TaskRows.kind($0.type.rawValue) != nil }) else {
            throw SchedulingError.invalidArgument(
                "preferences.plant_task_types", .tooLong,
                "plant_task_types: at most 10000 entries, each a plant id of 1 to 200 characters and a known task type")
        }
        if hasLocation { try location.validate(field: "preferences.location") }
    }
}

/// A scheduling request that cannot be done. Its code is the status the caller sees, so it is an ``RPCError``
/// under the domain's name.
public typealias SchedulingError = RPCError
