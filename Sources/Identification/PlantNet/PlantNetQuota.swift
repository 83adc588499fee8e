import Foundation

/// Pl@ntNet's daily identification quota as this service knows it: the plan's limit (configured), what
/// Pl@ntNet last reported as remaining, and the requests sent since the last reset (00:00 UTC).
struct PlantNetQuota: Sendable, Equatable {
    /// What the status screen shows.
    struct Snapshot: Sendable, Equatable {
        /// The configured limit, raised when Pl@ntNet reports more remaining than it leaves.
        let limit: Int
        /// The limit minus Pl@ntNet's last reported remaining; before any report today, the requests this
        /// process has sent today (a lower bound: other clients may share the key).
        let used: Int
        /// As Pl@ntNet last reported today; nil before its first answer today.
        let remaining: Int?
        /// The next 00:00 UTC.
        let resetsAt: Date
    }

    let limit: Int
    private var day: Int
    private var sent = 0
    private var reportedRemaining: Int?

    init(limit: Int, now: Date) {
        self.limit = limit
        day = Self.utcDay(now)
    }

    mutating func sent(at now: Date) {
        roll(now)
        sent += 1
    }

    mutating func reported(remaining: Int, at now: Date) {
        roll(now)
        reportedRemaining = max(0, remaining)
    }

    mutating func exhausted(at now: Date) {
        reported(remaining: 0, at: now)
    }

    func snapshot(at now: Date) -> Snapshot {
        var current = self
        current.roll(now)
        guard let remaining = current.reportedRemaining else {
            return Snapshot(limit: limit, used: current.sent, remaining: nil, resetsAt: current.resetsAt)
        }
        // A report of more remaining than the configured plan allows means the plan is larger than configured.
        let effectiveLimit = max(limit, remaining + current.sent)
        return Snapshot(limit: effectiveLimit, used: effectiveLimit - remaining, remaining: remaining, resetsAt: current.resetsAt)
    }

    private var resetsAt: Date { Date(timeIntervalSince1970: Double(day + 1) * 86_400) }

    /// A new UTC day starts a fresh quota.
    private mutating func roll(_ now: Date) {
        let today = Self.utcDay(now)
        guard today != day else { return }
        day = today
        sent = 0
        reportedRemaining = nil
    }

    private static func utcDay(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) }
}
