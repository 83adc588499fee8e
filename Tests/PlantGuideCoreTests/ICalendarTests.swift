import Foundation
@testable import PlantGuideCore
import PlantGuideTestSupport
import Testing

@Suite("iCalendar")
struct ICalendarTests {
    /// Debian's python3-icalendar (Scripts/bootstrap installs it), run as a real parser of what we render.
    static let python = "/usr/bin/python3"

    private func events() throws -> [CalendarEvent] {
        var preferences = SchedulePreferences()
        preferences.timeZone = TimeZone(identifier: "Europe/Berlin")!
        var request = ScheduleRequest(
            care: CareInfo(scientificName: "Monstera deliciosa",
                           watering: WateringSchedule(frequency: .everyOtherDay, amount: .thorough),
                           fertilizer: FertilizerSchedule(frequency: .weekly, type: .balancedLiquid, activeMonths: [3, 4]),
                           source: .catalog, fetchedAt: Date(timeIntervalSince1970: 0)),
            setting: .indoor, start: LocalDate(parsing: "2026-03-25")!)
        request.horizonDays = 14
        let name = "Monty; the \"big\" one, by the window\nkitchen — 🌿 Ünïcödé \\ end"
        return ScheduleGenerator.plan(request, preferences: preferences).map { task in
            CalendarEvent(
                uid: "task-\(task.kind.rawValue)-\(task.due)@plantguide", summary: "\(task.kind.rawValue.capitalized) \(name)",
                description: String(repeating: "Long description with accents: àéîõü, ", count: 4), due: task.due, alarmAt: task.remindAt)
        }
    }

    @Test("a real iCalendar parser reads back every task: uid, summary, date and alarm")
    func roundTrip() async throws {
        let events = try events()
        let ics = ICalendar.render(events, name: "PlantGuide, Anna's plants", stamp: Date(timeIntervalSince1970: 1_790_000_000))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-\(UUID().uuidString).ics")
        try ics.write(to: file, atomically: true, encoding: .utf8)

        let parsed = try await parse(file)

        #expect(parsed.count == events.count && events.count == 9, "7 waterings and 2 feeds from 25 March to 7 April")
        for (event, read) in zip(events, parsed) {
            #expect(read["uid"] as? String == event.uid)
            #expect(read["summary"] as? String == event.summary)
            #expect(read["description"] as? String == event.description)
            #expect(read["start"] as? String == event.due.description)
            #expect(read["alarm"] as? Double == event.alarmAt?.timeIntervalSince1970)
        }
        #expect(ics.split(separator: "\r\n", omittingEmptySubsequences: false).allSatisfy { $0.utf8.count <= 75 })
        #expect(!ics.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every line ends in CRLF")
    }

    @Test("folding never splits a character and keeps lines within 75 octets")
    func folding() {
        let line = "SUMMARY:" + String(repeating: "🌿é", count: 40)
        let folded = ICalendar.render([CalendarEvent(uid: "u", summary: String(repeating: "🌿é", count: 40), due: LocalDate(dayNumber: 0),
                                                     alarmAt: Date(timeIntervalSince1970: 0))], name: "x", stamp: Date())
        let unfolded = folded.replacingOccurrences(of: "\r\n ", with: "")
        #expect(unfolded.contains(line))
        #expect(folded.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 75 })
    }

    private func parse(_ file: URL) async throws -> [[String: Any]] {
        let script = """
            import icalendar, json, sys
            calendar = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            out = []
            for event in calendar.walk('VEVENT'):
                alarm = event.walk('VALARM')[0]
                out.append({'uid': str(event['UID']), 'summary': str(event['SUMMARY']),
                            'description': str(event.get('DESCRIPTION', '')),
                            'start': event['DTSTART'].dt.isoformat(),
                            'alarm': alarm['TRIGGER'].dt.timestamp()})
            print(json.dumps(out))
            """
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: Self.python), ["-c", script, file.path])
        guard outcome.status == 0 else { throw CocoaError(.fileReadCorruptFile) }
        let data = Data(outcome.output.utf8)
        return try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    }
}

@Suite("iCalendar times")
struct ICalendarTimeTests {
    @Test("UTC date-times by arithmetic match Foundation's calendar, to the second, over four centuries")
    func utcMatchesCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var generator = SystemRandomNumberGenerator()
        let instants = [0, -1, 86_399, 86_400, 951_782_400, 4_107_542_399, -2_208_988_800] + (0..<2_000).map { _ in
            Double(Int64.random(in: -6_000_000_000...7_000_000_000, using: &generator)) + Double.random(in: 0..<1, using: &generator)
        }
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let expected = String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!)
            #expect(ICalendar.utc(date) == expected, "\(seconds)")
        }
    }
}
