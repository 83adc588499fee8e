import Foundation
import PlantGuideCore
import PropertyBased
import PlantGuideTestSupport
import Testing

@Suite("Schedule generation: properties over random plants, preferences and dates", .cpuHeavy)
struct ScheduleGeneratorPropertyTests {
    static let zones = ["Europe/Berlin", "America/New_York", "UTC", "Australia/Sydney", "Asia/Kolkata"]
    static let activeMonths: [[Int]] = [Array(3...9), Array(4...8), Array(1...12), [10, 11, 12, 1, 2, 3], [6]]

    /// Plans for random inputs (dates 2024–2028, around leap days and every DST change in between).
    private func checkPlans(_ check: @escaping @Sendable (ScheduleRequest, SchedulePreferences, [PlannedTask]) -> Void) async {
        await propertyCheck(
            count: 300,
            input: Gen<WateringFrequency>.case, Gen<FertilizerFrequency>.case,
            Gen.int(in: 19_723...21_184), Gen.int(in: 0...(Self.zones.count - 1)), Gen.int(in: 1...7).set(ofAtMost: 0...7),
            Gen.int(in: 6...22), Gen<PlantSetting>.case, Gen.int(in: 0...15)
        ) { watering, fertilizer, startDay, zoneIndex, avoid, hour, setting, flags in
            let zone = Self.zones[zoneIndex]
            let care = CareInfo(
                scientificName: "Ficus lyrata",
                watering: WateringSchedule(frequency: watering, amount: .moderate, seasonalAdjustments: [.winter: 2, .autumn: 1.5]),
                fertilizer: FertilizerSchedule(frequency: fertilizer, type: .balancedLiquid, activeMonths: Self.activeMonths[flags % 5]),
                source: .catalog, fetchedAt: Date(timeIntervalSince1970: 0))
            var request = ScheduleRequest(care: care, setting: setting, start: LocalDate(dayNumber: startDay))
            request.horizonDays = [30, 45, 90][flags % 3]
            request.includePruning = flags & 1 == 1
            request.includeRepotting = flags & 2 == 2
            if flags & 4 == 4 { request.lastDone[.watering] = LocalDate(dayNumber: startDay - flags) }
            var preferences = SchedulePreferences()
            preferences.timeZone = TimeZone(identifier: zone)!
            preferences.notifyTime = LocalTime(hour: hour, minute: (flags * 7) % 60)
            preferences.avoidWeekdays = avoid
            preferences.groupWatering = flags & 8 == 8
            preferences.remindDaysBefore = flags % 3
            preferences.hemisphere = zone == "Australia/Sydney" ? .southern : .northern
            check(request, preferences, ScheduleGenerator.plan(request, preferences: preferences))
        }
    }

    @Test("no task before the start or past the horizon, and no task twice")
    func boundsAndDuplicates() async {
        await checkPlans { request, _, tasks in
            let end = request.start.adding(days: request.horizonDays)
            #expect(tasks.allSatisfy { $0.due >= request.start && $0.due < end })
            #expect(Set(tasks.map { "\($0.kind)\($0.due)" }).count == tasks.count)
        }
    }

    @Test("avoided weekdays are never used (unless all seven are avoided)")
    func avoidedWeekdays() async {
        await checkPlans { _, preferences, tasks in
            guard preferences.avoidWeekdays.count < 7 else { return }
            #expect(tasks.allSatisfy { !preferences.avoidWeekdays.contains($0.due.weekday) })
        }
    }

    @Test("waterings are never closer than the interval")
    func intervals() async {
        await checkPlans { request, _, tasks in
            let days = tasks.filter { $0.kind == .watering }.map(\.due)
            #expect(zip(days, days.dropFirst()).allSatisfy { $0.days(to: $1) >= request.care.watering.intervalDays })
        }
    }

    @Test("fertiliser and pruning only in the active months of the hemisphere")
    func activeMonths() async {
        await checkPlans { request, preferences, tasks in
            for task in tasks where task.kind == .fertilizing || task.kind == .pruning {
                #expect(request.care.fertilizer.activeMonths.contains(preferences.hemisphere.northernMonth(task.due.month)))
            }
        }
    }

    @Test("every reminder is at the notify time, on the due date or the chosen days before, in local time")
    func reminderTimes() async {
        await checkPlans { _, preferences, tasks in
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = preferences.timeZone
            for task in tasks {
                let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: task.remindAt)
                let day = LocalDate(year: parts.year!, month: parts.month!, day: parts.day!)
                #expect(day == task.due.adding(days: -preferences.remindDaysBefore))
                #expect(parts.hour == preferences.notifyTime.hour && parts.minute == preferences.notifyTime.minute)
            }
        }
    }

    @Test("LocalDate arithmetic agrees with Foundation's calendar for every day of 1900–2100")
    func dateArithmetic() async {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        await propertyCheck(count: 500, input: Gen.int(in: -25_567...47_482)) { day in
            let date = LocalDate(dayNumber: day)
            let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: Date(timeIntervalSince1970: Double(day) * 86_400))
            #expect(date.components == (parts.year!, parts.month!, parts.day!))
            #expect(date.weekday == (parts.weekday! + 5) % 7 + 1)
            #expect(LocalDate(parsing: date.description) == date)
        }
    }
}
