import Foundation
import Synchronization

/// The bearer tokens already checked, so that most calls know their caller without reading SQLite (a read costs
/// two thread hand-offs, about a third of a millisecond here, more than the rest of the gateway's work on a call).
///
/// Only valid tokens are kept. Tokens are revoked by another process (`plantguide-gateway tokens revoke` on the
/// same database), so the cache looks at the number of revocations at most every `recheckInterval` and forgets
/// everything when it changed: a revoked token is refused within that interval (a quarter second by default).
final class TokenCache: Sendable {
    typealias Owner = (userID: String, tokenID: String)

    private struct State {
        var owners: [Data: Owner] = [:]
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

    /// The user and token id of `token`, or nil when it is unknown or revoked.
    func owner(ofToken token: String) async throws -> Owner? {
        guard AccountStore.isWellFormed(token: token) else { return nil }
        let hash = AccountStore.sha256(token)
        let generation = try await currentGeneration()
        if let known = state.withLock({ $0.owners[hash] }) { return known }
        guard let found = try await accounts.owner(ofTokenHash: hash) else { return nil }
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
