import Foundation
import Synchronization

/// The bearer tokens already checked, so that most calls know their caller without reading SQLite (a read costs
/// two thread hand-offs, about a third of a millisecond here, more than the rest of the gateway's work on a call).
///
/// Only valid tokens are kept. Tokens are revoked by another process (`plantguide-gateway tokens revoke` on the
/// same database), so the cache looks at the number of revocations at most every `recheckInterval` and forgets
/// everything when it changed: a revoked token is refused within that interval (a quarter second by default).
///
/// A session that expires (``SessionLifetime``) is refused from the moment its time is up, cached or not; its use
/// is written down at most every ``TokenOwner/touchInterval`` (an hour), which moves its idle expiry on every replica.
final class TokenCache: Sendable {
    private struct State {
        var owners: [Data: TokenOwner] = [:]
        /// The revocation count the owners were read under; nil before the first check.
        var revocations: Int?
        var checkedAt: ContinuousClock.Instant?
    }

    private let accounts: AccountStore
    private let recheckInterval: Duration
    private let state = Mutex(State())

    init(accounts: AccountStore, recheckInterval: Duration = .milliseconds(250)) {
        self.accounts = accounts
        self.recheckInterval = recheckInterval
    }

    /// The owner of `token`, or nil when it is unknown, revoked or expired.
    func owner(ofToken token: String) async throws -> TokenOwner? {
        guard AccountStore.isWellFormed(token: token) else { return nil }
        let hash = AccountStore.sha256(token)
        let generation = try await currentGeneration()
        let time = accounts.now().timeIntervalSince1970
        var found: TokenOwner
        var changed = false
        // A cached session that looks idle too long may have been used through another replica since: read again.
        if let known = state.withLock({ $0.owners[hash] }), known.isValid(at: time) {
            found = known
        } else {
            guard let read = try await accounts.owner(ofTokenHash: hash) else { return nil }
            found = read
            changed = true
        }
        guard found.isValid(at: time) else {
            _ = state.withLock { $0.owners.removeValue(forKey: hash) }
            return nil
        }
        if let interval = found.touchInterval, time - found.lastUsedAt >= interval {
            try await accounts.touchToken(id: found.tokenID)
            found.lastUsedAt = time
            changed = true
        }
        guard changed else { return found }
        state.withLock { state in
            // Kept only if no revocation was seen since the read began; the next check clears it otherwise.
            guard state.revocations == generation else { return }
            if state.owners.count >= 100_000 { state.owners.removeAll() }
            state.owners[hash] = found
        }
        return found
    }

    /// The revocation count, read again when the last reading is older than the interval; a new count clears
    /// the cache.
    private func currentGeneration() async throws -> Int {
        let now = ContinuousClock.now
        let cached = state.withLock { state -> Int? in
            guard let checked = state.checkedAt, checked.duration(to: now) < recheckInterval else { return nil }
            return state.revocations
        }
        if let cached { return cached }
        let count = try await accounts.revocationCount()
        state.withLock { state in
            if state.revocations != count {
                state.owners.removeAll()
                state.revocations = count
            }
            state.checkedAt = now
        }
        return count
    }
}
