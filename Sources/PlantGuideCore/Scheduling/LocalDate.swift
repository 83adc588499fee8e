/// A calendar date without a time or a time zone ("2026-03-29"): what a care task is due on, in the person's
/// own calendar. Arithmetic is pure (proleptic Gregorian, days since 1970-01-01), so leap years need no Calendar.
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let dayNumber: Int

    public init(dayNumber: Int) {
        self.dayNumber = dayNumber
    }

    /// - Precondition: a valid date (use `init?(parsing:)` for input).
    public init(year: Int, month: Int, day: Int) {
        precondition((1...12).contains(month) && (1...Self.daysIn(month: month, year: year)).contains(day), "not a date")
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        dayNumber = era * 146_097 + dayOfEra - 719_468
    }

    /// Parses "YYYY-MM-DD"; nil for anything else, including dates that do not exist (2026-02-29).
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Year, month (1–12) and day.
    public var components: (year: Int, month: Int, day: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public var month: Int { components.month }

    /// ISO weekday: 1 = Monday … 7 = Sunday.
    public var weekday: Int { ((dayNumber % 7 + 7) % 7 + 3) % 7 + 1 }

    public func adding(days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + days) }

    /// Days from `self` to `other` (negative when `other` is earlier).
    public func days(to other: LocalDate) -> Int { other.dayNumber - dayNumber }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool { lhs.dayNumber < rhs.dayNumber }

    /// "YYYY-MM-DD".
    public var description: String {
        let (year, month, day) = components
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
