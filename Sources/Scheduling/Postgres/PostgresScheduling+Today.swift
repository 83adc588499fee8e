import Foundation
import PlantGuideProtos
import PlantGuideRPCCore
import PlantGuideStorage
import PostgresNIO
import Synchronization

/// A query about "today" needs the owner's time zone, which is in their preferences. Instead of reading the
/// preferences first (a round trip of its own), the query is written for the today that the preferences this
/// process last saw give, and returns the stored preferences beside its answer: when they give another day,
/// which happens after the owner changes time zone or when another replica saw them last, it runs again.
extension PostgresScheduling {
    /// Runs `query` for the owner's today at `time` and returns its answer; `query` returns the owner's stored
    /// preferences message (nil when none is stored) with what it found.
    func forToday<Answer: Sendable>(owner: String, at time: Date,
                                    _ query: @Sendable @escaping (PostgresSession, Int) async throws -> (preferences: Data?, answer: Answer))
        async throws -> Answer {
        try await database.read { session in
            var today = try SchedulePlanning.today(self.seenPreferences.preferences(owner: owner), at: time).dayNumber
            for _ in 0..<3 {
                let (stored, answer) = try await query(session, today)
                let preferences = try stored.map { try Preferences(serializedBytes: $0) } ?? SchedulingStore.defaultPreferences
                self.seenPreferences.saw(preferences, owner: owner)
                let actual = try SchedulePlanning.today(preferences, at: time).dayNumber
                if actual == today { return answer }
                today = actual
            }
            throw RPCError(.aborted, "the time zone changed while the tasks were read; retry")
        }
    }
}

/// The preferences this process last read of each owner (at most ``capacity`` owners): a guess, never an answer.
final class SeenPreferences: Sendable {
    static let capacity = 10_000
    private let seen = Mutex<[String: Plantguide_Scheduling_V1_Preferences]>([:])

    func preferences(owner: String) -> Plantguide_Scheduling_V1_Preferences {
        seen.withLock { $0[owner] } ?? SchedulingStore.defaultPreferences
    }

    func saw(_ preferences: Plantguide_Scheduling_V1_Preferences, owner: String) {
        seen.withLock { seen in
            if seen.count >= Self.capacity, seen[owner] == nil { seen.removeAll(keepingCapacity: true) }
            seen[owner] = preferences
        }
    }
}
