import PlantGuideCore

/// A provider client's request budget: a token bucket shared by every request, blocked further when the provider
/// answers 429.
actor RateLimiter {
    private var bucket: TokenBucket<ContinuousClock.Instant>

    init(requestsPerMinute: Int) {
        bucket = TokenBucket(capacity: max(1, requestsPerMinute), per: .seconds(60), now: .now)
    }

    /// Waits for a token, at most `maxWait`.
    /// - Throws: `ProviderError.rateLimited` when the wait would be longer.
    func acquire(maxWait: Duration, provider: String) async throws {
        while let wait = bucket.take(now: .now) {
            guard wait <= maxWait else {
                throw ProviderError(.rateLimited, "client-side rate limit reached; retry in \(wait)", retryAfter: wait, provider: provider)
            }
            try await Task.sleep(for: wait)
        }
    }

    /// Grants nothing for `duration` (the provider said so).
    func block(for duration: Duration) {
        bucket.block(until: .now + duration)
    }
}
