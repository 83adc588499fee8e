import Synchronization

/// Which pending care lookups and deletions this gateway process is working on right now, so that two of its tasks
/// never work on the same one: a save under way keeps the sweeper off its lookup (the sweeper would plan the
/// schedule a second time, perhaps after the person erased their data), a deletion under way keeps it off that
/// deletion (finishing it first, the sweeper left the caller's answer counting no task deleted), and erasing a
/// person's data keeps it off all of their lookups. In memory only: after a crash nothing is under way, and the
/// sweeper takes everything.
final class PendingWorkClaims: Sendable {
    private struct Held {
        var lookups: Set<Key> = []
        var deletions: Set<Key> = []
        var erasing: Set<String> = []
    }

    private struct Key: Hashable {
        var userID: String
        var plantID: String
    }

    private let held = Mutex(Held())

    /// Claims the lookup of `plantID`; false when another task holds it or the person's data is being erased.
    func claim(userID: String, plantID: String) -> Bool {
        held.withLock { held in
            !held.erasing.contains(userID) && held.lookups.insert(Key(userID: userID, plantID: plantID)).inserted
        }
    }

    func release(userID: String, plantID: String) {
        _ = held.withLock { $0.lookups.remove(Key(userID: userID, plantID: plantID)) }
    }

    /// Keeps new claims of `userID`'s lookups off and waits until those held are released (the sweeper finishes
    /// the one call it is making); ``endErasing(userID:)`` lets them in again.
    func beginErasing(userID: String) async {
        held.withLock { _ = $0.erasing.insert(userID) }
        while held.withLock({ held in held.lookups.contains { $0.userID == userID } }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    func endErasing(userID: String) {
        _ = held.withLock { $0.erasing.remove(userID) }
    }

    /// Claims the deletion of `plantID`; false when another task is working on it.
    func claimDeletion(userID: String, plantID: String) -> Bool {
        held.withLock { $0.deletions.insert(Key(userID: userID, plantID: plantID)).inserted }
    }

    func releaseDeletion(userID: String, plantID: String) {
        _ = held.withLock { $0.deletions.remove(Key(userID: userID, plantID: plantID)) }
    }
}
