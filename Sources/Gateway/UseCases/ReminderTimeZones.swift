import Foundation
import Synchronization

/// The time zone each collection's reminders are kept in, as scheduling last said, so that the statistics ("added
/// this month") need not ask scheduling before asking the collection on every My plants page.
///
/// A zone is trusted for `lifetime`: settings saved through this gateway replace it at once; settings saved through
/// another replica reach this one within the lifetime (the month's edge is then a few hours off for that long).
final class ReminderTimeZones: Sendable {
    private struct Remembered {
        let zone: String
        let at: ContinuousClock.Instant
    }

    private let lifetime: Duration
    private let capacity: Int
    private let zones = Mutex([String: Remembered]())

    init(lifetime: Duration = .seconds(300), capacity: Int = 100_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// The zone of `ownerID`'s reminders ("" for UTC), or nil when it is not known or too old.
    func zone(of ownerID: String) -> String? {
        let now = ContinuousClock.now
        return zones.withLock { zones in
            guard let remembered = zones[ownerID], remembered.at.duration(to: now) < lifetime else { return nil }
            return remembered.zone
        }
    }

    func remember(_ zone: String, of ownerID: String) {
        let now = ContinuousClock.now
        zones.withLock { zones in
            if zones.count >= capacity { zones.removeAll() }
            zones[ownerID] = Remembered(zone: zone, at: now)
        }
    }

    func forget(_ ownerID: String) {
        _ = zones.withLock { $0.removeValue(forKey: ownerID) }
    }
}
