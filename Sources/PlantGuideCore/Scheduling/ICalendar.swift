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
    public static func render(_ events: [CalendarEvent], name: String, stamp: Date) -> String {
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//PlantGuide//Care schedule//EN", "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH", "X-WR-CALNAME:\(escape(name))",
        ]
        let stamped = utc(stamp)
        for event in events {
            lines += [
                "BEGIN:VEVENT",
                "UID:\(escape(event.uid))",
                "DTSTAMP:\(stamped)",
                "DTSTART;VALUE=DATE:\(compact(event.due))",
                "DTEND;VALUE=DATE:\(compact(event.due.adding(days: 1)))",
                "SUMMARY:\(escape(event.summary))",
            ]
            if !event.description.isEmpty { lines.append("DESCRIPTION:\(escape(event.description))") }
            lines.append("TRANSP:TRANSPARENT")
            if let alarmAt = event.alarmAt {
                lines += [
                    "BEGIN:VALARM",
                    "ACTION:DISPLAY",
                    "DESCRIPTION:\(escape(event.summary))",
                    "TRIGGER;VALUE=DATE-TIME:\(utc(alarmAt))",
                    "END:VALARM",
                ]
            }
            lines.append("END:VEVENT")
        }
        lines.append("END:VCALENDAR")
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    /// TEXT escaping: backslash, semicolon, comma and newlines.
    static func escape(_ text: String) -> String {
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
            let size = String(scalar).utf8.count
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

    private static func compact(_ date: LocalDate) -> String { date.description.replacingOccurrences(of: "-", with: "") }

    private static func utc(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!)
    }
}
