import Foundation

/// Kinds of care task.
public enum CareTaskKind: String, Hashable, Sendable, CaseIterable, Codable {
    case watering, fertilizing, pruning, repotting, pestControl = "pest_control", rotation
    /// Picking a crop: weekly in its harvest months, when its care data knows the days to harvest.
    case harvest
}

/// Where a plant lives; outdoor plants rest in their dormant season.
public enum PlantSetting: String, Hashable, Sendable, CaseIterable, Codable {
    case indoor, outdoor, greenhouse, balcony

    /// True where the seasons reach the plant (outdoor, balcony).
    public var followsSeasons: Bool { self == .outdoor || self == .balcony }
}

/// Which half of the world the garden is in: months of care data are written for the northern one.
public enum Hemisphere: String, Hashable, Sendable, Codable {
    case northern, southern

    /// From a latitude: southern below the equator.
    public init(latitude: Double) { self = latitude < 0 ? .southern : .northern }

    /// The northern-hemisphere month that corresponds to local `month` (six months apart in the south).
    public func northernMonth(_ month: Int) -> Int { self == .northern ? month : (month + 5) % 12 + 1 }
}

/// A time of day on the wall clock, "08:00".
public struct LocalTime: Hashable, Sendable, Codable {
    public var hour: Int
    public var minute: Int

    public init(hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    /// Parses "HH:MM" (24-hour); nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.init(hour: hour, minute: minute)
    }

    public static let eightAM = LocalTime(hour: 8, minute: 0)
}

/// What a person chose about reminders and planning.
public struct SchedulePreferences: Hashable, Sendable {
    /// When reminders arrive, on the person's wall clock. Default 08:00.
    public var notifyTime: LocalTime = .eightAM
    public var timeZone: TimeZone = TimeZone(identifier: "UTC")!
    /// ISO weekdays (1 = Monday … 7 = Sunday) on which nothing is planned; ignored if it names all seven.
    public var avoidWeekdays: Set<Int> = []
    /// Remind this many days before the due date (0 = on the day).
    public var remindDaysBefore: Int = 0
    /// Put the watering of all plants on shared days where their intervals allow.
    public var groupWatering: Bool = false
    /// Stretch watering in the dormant season for plants that follow the seasons.
    public var seasonalAdjustment: Bool = true
    public var hemisphere: Hemisphere = .northern

    public init() {}
}

/// One planned task.
public struct PlannedTask: Hashable, Sendable {
    public var kind: CareTaskKind
    /// The day it is due, in the person's calendar.
    public var due: LocalDate
    /// When to remind: the notify time on the due date (or `remindDaysBefore` earlier), in the person's zone.
    public var remindAt: Date

    public init(kind: CareTaskKind, due: LocalDate, remindAt: Date) {
        self.kind = kind
        self.due = due
        self.remindAt = remindAt
    }
}
