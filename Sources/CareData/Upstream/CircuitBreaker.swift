import Synchronization

/// Stops asking a provider that keeps failing: after `threshold` failures in a row it refuses requests for
/// `cooldown`, then lets them through again (one more failure opens it anew). Answers of any kind, 404 and 429
/// included, close it: the provider is up.
final class CircuitBreaker: Sendable {
    private let threshold: Int
    private let cooldown: Duration
    private let state = Mutex<(failures: Int, openUntil: ContinuousClock.Instant?)>((0, nil))

    init(threshold: Int, cooldown: Duration) {
        self.threshold = max(1, threshold)
        self.cooldown = cooldown
    }

    /// How long the breaker stays open; nil when requests may go.
    func openFor(now: ContinuousClock.Instant = .now) -> Duration? {
        state.withLock { state in
            guard let until = state.openUntil, until > now else { return nil }
            return until - now
        }
    }

    func succeeded() {
        state.withLock { $0 = (0, nil) }
    }

    func failed(now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.failures += 1
            if state.failures >= threshold { state.openUntil = now + cooldown }
        }
    }
}
