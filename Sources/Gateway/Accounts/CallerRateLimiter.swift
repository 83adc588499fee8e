import Foundation
import PlantGuideCore
import PlantGuideRPC
import Synchronization

/// Calls a second each token may make (bursts of twice that), so that one runaway client cannot starve the others.
final class CallerRateLimiter: Sendable {
    private let perSecond: Int
    private let buckets = Mutex<[String: TokenBucket<ContinuousClock.Instant>]>([:])

    /// `perSecond` 0 turns limiting off.
    init(perSecond: Int) {
        self.perSecond = perSecond
    }

    /// - Throws: RESOURCE_EXHAUSTED with reason RATE_LIMITED and the wait in a RetryInfo.
    func admit(tokenID: String) throws {
        guard perSecond > 0 else { return }
        let now = ContinuousClock.now
        let wait = buckets.withLock { buckets -> Duration? in
            if buckets.count > 100_000 { buckets.removeAll() }  // a bound on memory; a cleared bucket starts full
            var bucket = buckets[tokenID] ?? TokenBucket(capacity: perSecond * 2, per: .seconds(2), now: now)
            let wait = bucket.take(now: now)
            buckets[tokenID] = bucket
            return wait
        }
        if let wait {
            throw RPCError(.resourceExhausted, "more than \(perSecond) calls a second with this token; slow down")
                .reason(RPCErrorReason.rateLimited, domain: GatewayErrorReason.domain, metadata: ["limit_per_second": "\(perSecond)"])
                .retry(after: wait)
        }
    }
}
