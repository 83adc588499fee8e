/// A token bucket: `capacity` requests at once, refilled at `capacity` per `period`. A value type driven by the
/// caller's clock, so that it is tested without waiting.
public struct TokenBucket<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    public let capacity: Int
    public let period: Duration
    private var tokens: Double
    private var updated: Instant
    /// No token before this instant (a server said so with 429).
    private var blockedUntil: Instant?

    /// A full bucket at `now`.
    public init(capacity: Int, per period: Duration, now: Instant) {
        precondition(capacity > 0, "a token bucket needs a capacity of at least 1")
        self.capacity = capacity
        self.period = period
        tokens = Double(capacity)
        updated = now
    }

    /// Takes a token: nil when granted, else how long to wait before asking again.
    public mutating func take(now: Instant) -> Duration? {
        if let blockedUntil, now < blockedUntil { return now.duration(to: blockedUntil) }
        blockedUntil = nil
        refill(now: now)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        let perToken = period / capacity
        return perToken * (1 - tokens)
    }

    /// Holds `tokens` as of `now`, as a bucket shared with other holders of the same limit counts them: between
    /// the capacity and one bucketful owed (negative), so that the calls granted after a debt wait for it.
    public mutating func set(tokens: Double, now: Instant) {
        self.tokens = min(Double(capacity), max(-Double(capacity), tokens))
        updated = now
    }

    /// Grants nothing until `instant` (the upstream's own limit was hit).
    public mutating func block(until instant: Instant) {
        blockedUntil = max(blockedUntil ?? instant, instant)
        tokens = 0
    }

    private mutating func refill(now: Instant) {
        let elapsed = updated.duration(to: now)
        guard elapsed > .zero else { return }
        let gained = Double(capacity) * (elapsed / period)
        tokens = min(Double(capacity), tokens + gained)
        updated = now
    }
}
