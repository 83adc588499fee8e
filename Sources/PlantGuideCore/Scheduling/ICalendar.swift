import Foundation

/// One care task as a calendar event.
public struct CalendarEvent: Sendable, Hashable {
    /// Stable across renderings (the task's id), so calendar apps update an event instead of adding a copy.
    public var uid: String
    public var summary: String
    public var description: String
    /// An all-day event on this date.
    public var due: LocalDate
    /// When the calendar app should alert; nil for no alert (reminders of the task's type are off).
    public var alarmAt: Date?

    public init(uid: String, summary: String, description: String = "", due: LocalDate, alarmAt: Date?) {
        self.uid = uid
        self.summary = summary
        self.description = description
        self.due = due
        self.alarmAt = alarmAt
    }
}

/// RFC 5545 iCalendar rendering of care tasks, for a subscription feed any phone calendar can follow: one all-day
/// VEVENT per task, with a VALARM at the reminder instant when the task reminds. Lines end in CRLF and are folded at 75 octets without
/// splitting a UTF-8 sequence; text is escaped as the RFC says.
public enum ICalendar {
    /// The feed, written line by line into one buffer: a feed of a thousand plants holds tens of thousands of
    /// events, and every intermediate string was a measurable part of rendering it.
    public static func render(_ events: [CalendarEvent], name: String, stamp: Date) -> String {
        var out = ""
        out.reserveCapacity(200 + events.count * 320)
        for header in ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//PlantGuide//Care schedule//EN", "CALSCALE:GREGORIAN",
                       "METHOD:PUBLISH", "X-WR-CALNAME:" + escape(name)] {
            append(header, to: &out)
        }
        let stamped = utc(stamp)
        for event in events {
            let summary = escape(event.summary)
            append("BEGIN:VEVENT", to: &out)
            append("UID:" + escape(event.uid), to: &out)
            append("DTSTAMP:" + stamped, to: &out)
            append("DTSTART;VALUE=DATE:" + compact(event.due), to: &out)
            append("DTEND;VALUE=DATE:" + compact(event.due.adding(days: 1)), to: &out)
            append("SUMMARY:" + summary, to: &out)
            if !event.description.isEmpty { append("DESCRIPTION:" + escape(event.description), to: &out) }
            append("TRANSP:TRANSPARENT", to: &out)
            if let alarmAt = event.alarmAt {
                append("BEGIN:VALARM", to: &out)
                append("ACTION:DISPLAY", to: &out)
                append("DESCRIPTION:" + summary, to: &out)
                append("TRIGGER;VALUE=DATE-TIME:" + utc(alarmAt), to: &out)
                append("END:VALARM", to: &out)
            }
            append("END:VEVENT", to: &out)
        }
        append("END:VCALENDAR", to: &out)
        return out
    }

    /// A content line, folded when it is longer than 75 octets, and its CRLF.
    private static func append(_ line: String, to out: inout String) {
        if line.utf8.count <= 75 { out += line } else { out += fold(line) }
        out += "\r\n"
    }

    /// TEXT escaping: backslash, semicolon, comma and newlines.
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x3B || $0 == 0x2C || $0 == 0x0A || $0 == 0x0D }) else { return text }
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n", "\r\n", "\r": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// Splits a content line into 75-octet pieces, continuation lines starting with a space.
    static func fold(_ line: String) -> String {
        var pieces: [String] = []
        var current = ""
        var octets = 0
        for scalar in line.unicodeScalars {
            let size = UTF8.width(scalar)
            let limit = pieces.isEmpty ? 75 : 74  // the leading space counts
            if octets + size > limit {
                pieces.append(current)
                current = ""
                octets = 0
            }
            current.unicodeScalars.append(scalar)
            octets += size
        }
        pieces.append(current)
        return pieces.joined(separator: "\r\n ")
    }

    private static func compact(_ date: LocalDate) -> String {
        let (year, month, day) = date.components
        return digits(year, 4) + digits(month, 2) + digits(day, 2)
    }

    /// `date` in UTC as YYYYMMDDTHHMMSSZ (whole seconds, rounded down), by arithmetic: a Calendar per alarm was a
    /// tenth of a feed's rendering.
    static func utc(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = seconds - days * 86_400
        return compact(LocalDate(dayNumber: days)) + "T" + digits(inDay / 3_600, 2) + digits(inDay % 3_600 / 60, 2) + digits(inDay % 60, 2) + "Z"
    }

    /// `value` in decimal, zero-padded to `width` digits.
    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
