import Foundation
import Logging
import ServiceLifecycle

/// Shares the tokens' rate limits between gateway replicas: every `interval`, spends the calls this replica granted
/// from the tokens' buckets in the database and takes their levels (see ``CallerRateLimiter``). Does nothing on a
/// backend that one process uses alone. A Service: run it beside the fronts.
public struct RateLimitExchange: Service {
    let limiter: CallerRateLimiter
    let records: any GatewayRecords
    let logger: Logger
    /// How often the buckets are exchanged: the longest a burst on one replica goes unseen by the others.
    var interval: Duration = .milliseconds(250)
    /// The time, on this process's clock and as seconds since 1970 (the buckets' time in the database, the same
    /// on every replica); injected by tests.
    var now: @Sendable () -> (instant: ContinuousClock.Instant, seconds: Double) = { (.now, Date().timeIntervalSince1970) }

    /// Exchanges until graceful shutdown; on a backend with nothing to share (or with no limit), only waits for it:
    /// a Service that ends early would end the whole group.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            if limiter.perSecond > 0 { await exchangeUntilUnshared() }
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3_600)) }
        }
    }

    /// Exchanges every interval until cancelled, or until the backend says there are no other replicas.
    private func exchangeUntilUnshared() async {
        let clock = ContinuousClock()
        var lastCleanup = clock.now
        var failing = false
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            do {
                guard try await exchangeOnce() else { return }
                if failing { logger.info("rate limits are shared with the other replicas again") }
                failing = false
                if lastCleanup.duration(to: clock.now) > .seconds(60) {
                    lastCleanup = clock.now
                    try await records.forgetSharedBuckets(before: now().seconds - 600)
                }
            } catch {
                // Each replica goes on limiting alone meanwhile.
                if !failing { logger.warning("rate limits cannot be shared with the other replicas for now", metadata: ["error": "\(error)"]) }
                failing = true
            }
        }
    }

    /// One exchange; false when the backend has no other replicas to share with.
    func exchangeOnce() async throws -> Bool {
        let (instant, seconds) = now()
        let report = limiter.report(now: instant)
        guard !report.isEmpty else { return true }
        let levels: [String: Double]?
        do {
            levels = try await records.spendShared(report.spent, watching: report.watching, capacity: limiter.capacity, perSecond: limiter.perSecond,
                                                   at: seconds)
        } catch {
            limiter.restore(report)
            throw error
        }
        guard let levels else { return false }
        limiter.apply(levels: levels, now: instant)
        return true
    }
}
