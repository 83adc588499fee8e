import Foundation

/// What to plan for one plant.
public struct ScheduleRequest: Sendable {
    public var care: CareInfo
    public var setting: PlantSetting
    /// First day of the horizon (today, in the person's calendar).
    public var start: LocalDate
    /// Days planned from `start` (the rolling horizon). Default 30.
    public var horizonDays: Int = 30
    /// When each kind of care was last done: the next occurrence counts from there, not from the old plan.
    public var lastDone: [CareTaskKind: LocalDate] = [:]
    public var includeRepotting = false
    public var includePruning = false

    public init(care: CareInfo, setting: PlantSetting, start: LocalDate) {
        self.care = care
        self.setting = setting
        self.start = start
    }
}

/// Plans care tasks from care info and preferences. Pure and deterministic: the same inputs give the same plan.
///
/// - Watering every `intervalDays`, from the last watering (or the first day). For plants that follow the seasons
///   (outdoor, balcony) the interval is multiplied by the care info's factor for the season of each due date
///   (hemisphere-aware), when the person wants seasonal adjustment.
/// - Grouping waterings: intervals of a week or more land on Mondays, shorter ones (2–6 days) on even days, so
///   that plants share watering days; daily watering is never moved.
/// - Fertilising at its frequency (weekly 7, biweekly 14, monthly 30, quarterly 91 days) only in the active months
///   (shifted six months in the southern hemisphere); an out-of-season due date moves to the start of the next
///   active month.
/// - Pruning monthly in the active months, and repotting yearly in the first two active months, when asked for.
/// - Harvesting weekly in the harvest months of a crop whose days to harvest are known (never for houseplants);
///   whether it reminds is the person's task-type choice, like the others.
/// - A due date on an avoided weekday moves to the next allowed day. Every later date counts from the moved one,
///   so intervals are never shortened.
/// - Reminders at the notify time of the due date (or `remindDaysBefore` days earlier) in the person's time
///   zone: the wall-clock time is kept across daylight-saving changes.
public enum ScheduleGenerator {
    public static func plan(_ request: ScheduleRequest, preferences: SchedulePreferences) -> [PlannedTask] {
        var planner = Planner(request: request, preferences: preferences)
        planner.planWatering()
        if let interval = Self.fertilizerInterval(request.care.fertilizer.frequency) {
            planner.planRecurring(.fertilizing, every: interval, inMonths: request.care.fertilizer.activeMonths)
        }
        if request.includePruning {
            planner.planRecurring(.pruning, every: 30, inMonths: request.care.fertilizer.activeMonths)
        }
        if request.includeRepotting {
            let growing = request.care.fertilizer.activeMonths.isEmpty ? CareDefaults.growingMonths : request.care.fertilizer.activeMonths
            planner.planRecurring(.repotting, every: 365, inMonths: Array(growing.prefix(2)))
        }
        if let harvest = request.care.harvest, harvest.daysToHarvest != nil, !harvest.months.isEmpty {
            planner.planRecurring(.harvest, every: 7, inMonths: harvest.months)
        }
        return planner.tasks.sorted { ($0.due, $0.kind.rawValue) < ($1.due, $1.kind.rawValue) }
    }

    static func fertilizerInterval(_ frequency: FertilizerFrequency) -> Int? {
        switch frequency {
        case .none: nil
        case .weekly: 7
        case .biweekly: 14
        case .monthly: 30
        case .quarterly: 91
        }
    }
}

/// The working state of one plan.
private struct Planner {
    let request: ScheduleRequest
    let preferences: SchedulePreferences
    let end: LocalDate
    let avoided: Set<Int>
    let calendar: Calendar
    var tasks: [PlannedTask] = []

    init(request: ScheduleRequest, preferences: SchedulePreferences) {
        self.request = request
        self.preferences = preferences
        end = request.start.adding(days: max(0, request.horizonDays))
        let avoid = preferences.avoidWeekdays.filter { (1...7).contains($0) }
        avoided = avoid.count == 7 ? [] : avoid
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = preferences.timeZone
        self.calendar = calendar
    }

    mutating func planWatering() {
        let base = max(1, request.care.watering.intervalDays)
        var next = request.lastDone[.watering].map { $0.adding(days: wateringInterval(at: $0, base: base)) } ?? request.start
        next = max(next, request.start)
        while true {
            let due = allowed(grouped(next, base: base))
            guard due < end else { return }
            add(.watering, due)
            next = due.adding(days: wateringInterval(at: due, base: base))
        }
    }

    mutating func planRecurring(_ kind: CareTaskKind, every interval: Int, inMonths months: [Int]) {
        let active = Set(months.isEmpty ? CareDefaults.growingMonths : months)
        var next = request.lastDone[kind].map { $0.adding(days: interval) } ?? request.start
        next = max(next, request.start)
        while next < end {
            guard let due = firstActiveAllowed(from: next, months: active), due < end else { return }
            add(kind, due)
            next = due.adding(days: interval)
        }
    }

    /// The first day from `date` that is in an active month (local) and not an avoided weekday.
    private func firstActiveAllowed(from date: LocalDate, months: Set<Int>) -> LocalDate? {
        var day = date
        for _ in 0..<400 {
            if !months.contains(preferences.hemisphere.northernMonth(day.month)) {
                let (year, month, _) = day.components
                day = month == 12 ? LocalDate(year: year + 1, month: 1, day: 1) : LocalDate(year: year, month: month + 1, day: 1)
                continue
            }
            if avoided.contains(day.weekday) {
                day = day.adding(days: 1)
                continue
            }
            return day
        }
        return nil
    }

    private func wateringInterval(at date: LocalDate, base: Int) -> Int {
        guard preferences.seasonalAdjustment, request.setting.followsSeasons else { return base }
        let season = Season(month: preferences.hemisphere.northernMonth(date.month))
        // Clamped, whatever a stored schedule holds: a multiplier of 1e300 or NaN must not stop planning.
        let factor = min(12, max(1, request.care.watering.seasonalAdjustments[season] ?? 1))
        return max(base, Int((Double(base) * (factor.isFinite ? factor : 1)).rounded()))
    }

    /// Moves `date` forward onto the shared grid of watering days.
    private func grouped(_ date: LocalDate, base: Int) -> LocalDate {
        guard preferences.groupWatering, base >= 2 else { return date }
        let (grid, anchor) = base >= 7 ? (7, 4) : (2, 0)  // day 4 (1970-01-05) was a Monday
        let offset = ((date.dayNumber - anchor) % grid + grid) % grid
        return offset == 0 ? date : date.adding(days: grid - offset)
    }

    private func allowed(_ date: LocalDate) -> LocalDate {
        var day = date
        while avoided.contains(day.weekday) { day = day.adding(days: 1) }
        return day
    }

    private mutating func add(_ kind: CareTaskKind, _ due: LocalDate) {
        tasks.append(PlannedTask(kind: kind, due: due, remindAt: remindAt(due)))
    }

    private func remindAt(_ due: LocalDate) -> Date {
        let (year, month, day) = due.adding(days: -max(0, preferences.remindDaysBefore)).components
        let components = DateComponents(
            year: year, month: month, day: day, hour: preferences.notifyTime.hour, minute: preferences.notifyTime.minute)
        return calendar.date(from: components) ?? Date(timeIntervalSince1970: Double(due.dayNumber) * 86_400)
    }
}
