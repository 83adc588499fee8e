import Foundation
import PlantGuideCore
import Testing

@Suite("Schedule generation: rules, time zones, leap days")
struct ScheduleGeneratorTests {
    private func care(_ frequency: WateringFrequency, fertilizer: FertilizerFrequency = .none, months: [Int] = CareDefaults.growingMonths,
                      winter: Double? = nil) -> CareInfo {
        CareInfo(
            scientificName: "Ficus lyrata",
            watering: WateringSchedule(frequency: frequency, amount: .moderate, seasonalAdjustments: winter.map { [.winter: $0] } ?? [:]),
            fertilizer: FertilizerSchedule(frequency: fertilizer, type: .balancedLiquid, activeMonths: months),
            source: .catalog, fetchedAt: Date(timeIntervalSince1970: 0))
    }

    private func date(_ text: String) -> LocalDate { LocalDate(parsing: text)! }

    private func preferences(_ zone: String, at time: LocalTime = .eightAM) -> SchedulePreferences {
        var preferences = SchedulePreferences()
        preferences.timeZone = TimeZone(identifier: zone)!
        preferences.notifyTime = time
        return preferences
    }

    private func localTime(_ instant: Date, _ zone: String) -> (String, Int, Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
        return (LocalDate(year: parts.year!, month: parts.month!, day: parts.day!).description, parts.hour!, parts.minute!)
    }

    @Test("reminders stay at 08:00 local across daylight-saving changes", arguments: [
        ("Europe/Berlin", "2026-03-27", 7 * 3_600.0, 6 * 3_600.0),  // spring: UTC+1 → UTC+2
        ("Europe/Berlin", "2026-10-23", 6 * 3_600.0, 7 * 3_600.0),  // autumn: UTC+2 → UTC+1
        ("America/New_York", "2026-03-06", 13 * 3_600.0, 12 * 3_600.0),  // spring: UTC−5 → UTC−4
        ("America/New_York", "2026-10-30", 12 * 3_600.0, 13 * 3_600.0),  // autumn: UTC−4 → UTC−5
    ] as [(String, String, Double, Double)])
    func daylightSaving(zone: String, start: String, utcBefore: Double, utcAfter: Double) {
        var request = ScheduleRequest(care: care(.daily), setting: .indoor, start: date(start))
        request.horizonDays = 5

        let tasks = ScheduleGenerator.plan(request, preferences: preferences(zone))

        #expect(tasks.count == 5)
        for task in tasks {
            let (day, hour, minute) = localTime(task.remindAt, zone)
            #expect(day == task.due.description && hour == 8 && minute == 0, "\(task.due) in \(zone)")
        }
        let first = tasks.first!.remindAt.timeIntervalSince1970 - Double(tasks.first!.due.dayNumber) * 86_400
        let last = tasks.last!.remindAt.timeIntervalSince1970 - Double(tasks.last!.due.dayNumber) * 86_400
        #expect(first == utcBefore && last == utcAfter, "the UTC instant moves so that the wall clock does not")
    }

    @Test("leap days are planned, and 29 February of a common year does not exist")
    func leapDays() {
        var request = ScheduleRequest(care: care(.daily), setting: .indoor, start: date("2028-02-27"))
        request.horizonDays = 4

        let days = ScheduleGenerator.plan(request, preferences: preferences("UTC")).map(\.due.description)

        #expect(days == ["2028-02-27", "2028-02-28", "2028-02-29", "2028-03-01"])
        #expect(LocalDate(parsing: "2026-02-29") == nil && LocalDate(parsing: "2000-02-29") != nil && LocalDate(parsing: "2100-02-29") == nil)
        #expect(date("2026-11-21").weekday == 6 && date("1970-01-01").weekday == 4)
    }

    @Test("the next watering counts from the last one done, not from the old plan")
    func countsFromCompletion() {
        var request = ScheduleRequest(care: care(.weekly), setting: .indoor, start: date("2026-06-01"))
        request.lastDone = [.watering: date("2026-06-03")]

        let days = ScheduleGenerator.plan(request, preferences: preferences("UTC")).map(\.due.description)

        #expect(days == ["2026-06-10", "2026-06-17", "2026-06-24"])
    }

    @Test("fertiliser only in the active months, shifted six months in the southern hemisphere")
    func fertilizerMonths() {
        var request = ScheduleRequest(care: care(.monthly, fertilizer: .biweekly, months: [3, 4, 5]), setting: .indoor, start: date("2026-02-10"))
        request.horizonDays = 120
        var south = preferences("Australia/Sydney")
        south.hemisphere = .southern

        let north = ScheduleGenerator.plan(request, preferences: preferences("UTC")).filter { $0.kind == .fertilizing }
        request.start = date("2026-08-10")
        let southern = ScheduleGenerator.plan(request, preferences: south).filter { $0.kind == .fertilizing }

        #expect(north.first?.due.description == "2026-03-01" && north.allSatisfy { (3...5).contains($0.due.month) })
        #expect(southern.first?.due.description == "2026-09-01" && southern.allSatisfy { (9...11).contains($0.due.month) })
    }

    @Test("a crop with days to harvest is picked weekly in its harvest months (six months on in the south); no days, no harvest")
    func harvest() {
        var tomato = care(.weekly)
        tomato.harvest = Harvest(crop: .fruit, edibleParts: ["fruits"], daysToHarvest: 70, months: [7, 8, 9])
        var request = ScheduleRequest(care: tomato, setting: .outdoor, start: date("2026-06-01"))
        request.horizonDays = 150
        var south = preferences("Australia/Sydney")
        south.hemisphere = .southern

        let north = ScheduleGenerator.plan(request, preferences: preferences("UTC")).filter { $0.kind == .harvest }
        request.start = date("2026-12-01")
        let southern = ScheduleGenerator.plan(request, preferences: south).filter { $0.kind == .harvest }
        tomato.harvest?.daysToHarvest = nil
        request.care = tomato
        let unknownDays = ScheduleGenerator.plan(request, preferences: preferences("UTC")).filter { $0.kind == .harvest }

        #expect(north.map(\.due.description).prefix(3) == ["2026-07-01", "2026-07-08", "2026-07-15"])
        #expect(north.count == 14 && north.allSatisfy { (7...9).contains($0.due.month) })
        #expect(southern.first?.due.description == "2027-01-01" && southern.allSatisfy { (1...3).contains($0.due.month) })
        #expect(unknownDays.isEmpty)
        #expect(ScheduleGenerator.plan(request, preferences: preferences("UTC")).contains { $0.kind == .watering })
    }

    @Test("outdoor plants are watered half as often in winter; indoor plants are not stretched")
    func seasons() {
        let winter = care(.weekly, winter: 2)
        var outdoor = ScheduleRequest(care: winter, setting: .outdoor, start: date("2026-12-01"))
        outdoor.horizonDays = 60
        var indoor = outdoor
        indoor.setting = .indoor

        let outdoorDays = ScheduleGenerator.plan(outdoor, preferences: preferences("UTC")).map(\.due)
        let indoorDays = ScheduleGenerator.plan(indoor, preferences: preferences("UTC")).map(\.due)

        #expect(zip(outdoorDays, outdoorDays.dropFirst()).allSatisfy { $0.days(to: $1) == 14 })
        #expect(zip(indoorDays, indoorDays.dropFirst()).allSatisfy { $0.days(to: $1) == 7 })
    }

    @Test("grouping puts weekly waterings on Mondays; reminders can come days early")
    func groupingAndEarlyReminders() {
        var request = ScheduleRequest(care: care(.weekly), setting: .indoor, start: date("2026-11-18"))  // a Wednesday
        var grouped = preferences("Europe/Berlin")
        grouped.groupWatering = true
        grouped.remindDaysBefore = 1

        let tasks = ScheduleGenerator.plan(request, preferences: grouped)

        #expect(tasks.allSatisfy { $0.due.weekday == 1 })
        #expect(tasks.first?.due.description == "2026-11-23")
        #expect(localTime(tasks.first!.remindAt, "Europe/Berlin").0 == "2026-11-22")
        request.includeRepotting = true
        request.start = date("2027-03-10")
        #expect(ScheduleGenerator.plan(request, preferences: grouped).filter { $0.kind == .repotting }.map(\.due.description) == ["2027-03-10"])
    }
}
