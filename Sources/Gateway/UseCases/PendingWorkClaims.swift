import Foundation
import PlantGuideRPCCore
import PlantGuideStorage
import Synchronization

/// Which pending care lookups and deletions are being worked on right now, so that two tasks never work on the
/// same one: a save under way keeps the sweeper off its lookup (the sweeper would plan the schedule a second time,
/// perhaps after the person erased their data), a deletion under way keeps it off that deletion (finishing it
/// first, the sweeper left the caller's answer counting no task deleted), and erasing a person's data keeps it off
/// all of their lookups.
///
/// Within this process the claims are held in memory. Gateway replicas sharing one database also claim in it
/// (``GatewayRecords/claimPending(_:by:until:at:)``), for ``lease`` seconds (30 by default), so that a replica
/// never works on what another holds; a claim of a replica that died ends with its lease, and then any replica
/// takes the work.
final class PendingWorkClaims: Sendable {
    private struct Held {
        var lookups: Set<Key> = []
        var deletions: Set<Key> = []
        var erasing: Set<String> = []
        /// The claims this process holds in the database, with the time each lasts until.
        var shared: [PendingClaim: Double] = [:]
    }

    private struct Key: Hashable {
        var userID: String
        var plantID: String
    }

    /// How long a claim in the database holds, in seconds: longer than any one piece of work (a call gets 10 s).
    let lease: Double

    private let held = Mutex(Held())
    private let records: (any GatewayRecords)?
    /// This process's name in the database's claims.
    let claimer = UUID().uuidString

    init(records: (any GatewayRecords)? = nil, lease: Double = 30) {
        self.records = records
        self.lease = lease
    }

    /// Claims the lookup of `plantID`; false when another task (or replica) holds it or the person's data is being
    /// erased.
    func claim(userID: String, plantID: String) async -> Bool {
        await claim(\.lookups, Key(userID: userID, plantID: plantID), .care(userID, plantID), unlessErasing: true) == true
    }

    func release(userID: String, plantID: String) {
        release(\.lookups, Key(userID: userID, plantID: plantID), .care(userID, plantID))
    }

    /// Keeps new claims of `userID`'s lookups off, in this process and (through the database) in every replica, and
    /// waits until those held are released or their lease ends (the sweeper finishes the one call it is making);
    /// ``endErasing(userID:)`` lets them in again.
    func beginErasing(userID: String) async {
        held.withLock { _ = $0.erasing.insert(userID) }
        while held.withLock({ held in held.lookups.contains { $0.userID == userID } }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        guard let records else { return }
        // No other replica's claim outlasts its lease: waiting longer than that is never needed.
        let giveUp = Date().timeIntervalSince1970 + lease
        while await claimShared(.erase(userID)) == false, Date().timeIntervalSince1970 < giveUp {
            try? await Task.sleep(for: .milliseconds(50))
        }
        while (try? await records.othersClaimPending(userID: userID, besides: claimer, at: Date().timeIntervalSince1970)) ?? false,
              Date().timeIntervalSince1970 < giveUp {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    func endErasing(userID: String) {
        _ = held.withLock { $0.erasing.remove(userID) }
        releaseShared(.erase(userID))
    }

    /// Claims the deletion of `plantID`; false when another task (or replica) is working on it. A save of the plant
    /// takes it too, so that a save and a deletion of one plant never interleave.
    func claimDeletion(userID: String, plantID: String) async -> Bool {
        await claimDeletionIfAsked(userID: userID, plantID: plantID) == true
    }

    /// ``claimDeletion(userID:plantID:)``, nil when the database cannot be asked.
    private func claimDeletionIfAsked(userID: String, plantID: String) async -> Bool? {
        await claim(\.deletions, Key(userID: userID, plantID: plantID), .deletion(userID, plantID))
    }

    /// Waits until ``claimDeletion(userID:plantID:)`` succeeds; UNAVAILABLE when it has not by `deadline`, or at once
    /// when the database cannot be asked (waiting would not help the caller).
    func waitForDeletion(userID: String, plantID: String, until deadline: ContinuousClock.Instant) async throws {
        while true {
            switch await claimDeletionIfAsked(userID: userID, plantID: plantID) {
            case true?: return
            case nil: throw StorageError.unavailable
            case false?:
                guard ContinuousClock.now < deadline else { throw RPCError(.unavailable, "the plant is being saved or deleted elsewhere; retry shortly") }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    func releaseDeletion(userID: String, plantID: String) {
        release(\.deletions, Key(userID: userID, plantID: plantID), .deletion(userID, plantID))
    }

    /// Claims `key` among this process's `claims` and `shared` in the database, keeping neither unless both hold
    /// (and, `unlessErasing`, not while the person's data is being erased); nil when the database cannot be asked.
    private func claim(_ claims: WritableKeyPath<Held, Set<Key>>, _ key: Key, _ shared: PendingClaim,
                       unlessErasing: Bool = false) async -> Bool? {
        guard held.withLock({ !(unlessErasing && $0.erasing.contains(key.userID)) && $0[keyPath: claims].insert(key).inserted }) else {
            return false
        }
        let claimed = await claimShared(shared)
        if claimed != true { _ = held.withLock { $0[keyPath: claims].remove(key) } }
        return claimed
    }

    private func release(_ claims: WritableKeyPath<Held, Set<Key>>, _ key: Key, _ shared: PendingClaim) {
        _ = held.withLock { $0[keyPath: claims].remove(key) }
        releaseShared(shared)
    }

    /// Claims `claim` in the database for ``lease`` seconds (always, without one); false when another replica holds
    /// it, nil when the database cannot be asked (the work waits for a later try; an erase goes on).
    private func claimShared(_ claim: PendingClaim) async -> Bool? {
        guard let records else { return true }
        let now = Date().timeIntervalSince1970
        // A time of its own: releasing this claim later never drops a newer claim of the same entry.
        let until = now + lease + Double.random(in: 0..<0.001)
        guard let claimed = try? await records.claimPending(claim, by: claimer, until: until, at: now) else { return nil }
        if claimed { held.withLock { $0.shared[claim] = until } }
        return claimed
    }

    /// Drops this process's claim in the database (in the background: releasing never makes a caller wait, and a
    /// release that fails leaves a claim that ends with its lease).
    private func releaseShared(_ claim: PendingClaim) {
        guard let records, let until = held.withLock({ $0.shared.removeValue(forKey: claim) }) else { return }
        let claimer = self.claimer
        Task { try? await records.releasePending(claim, by: claimer, until: until) }
    }
}
