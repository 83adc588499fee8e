import Foundation
import PlantGuideCore
import PlantGuideRPCCore
import Synchronization

/// Calls a second each token may make (bursts of twice that), so that one runaway client cannot starve the others.
///
/// Each replica admits from buckets of its own. With replicas (``RateLimitExchange``), every quarter second it spends
/// the calls it granted from the token's bucket in the database and takes that bucket's level as its own, less what
/// it granted meanwhile. So the rate holds across replicas, and a burst can exceed it by what the other replicas
/// granted since they last reported.
final class CallerRateLimiter: Sendable {
    /// What this replica knows of one token.
    private struct Entry {
        var bucket: TokenBucket<ContinuousClock.Instant>
        /// Calls granted here and not yet in a report.
        var unreported = 0
        var lastCall: ContinuousClock.Instant
    }

    /// The calls granted here since the last report, by token id, and the tokens called here lately without
    /// any since (whose buckets the other replicas may be spending).
    struct Report: Sendable, Equatable {
        var spent: [String: Int] = [:]
        var watching: [String] = []
        var isEmpty: Bool { spent.isEmpty && watching.isEmpty }
    }

    let perSecond: Int
    /// Calls a token may make at once.
    var capacity: Int { perSecond * 2 }
    private let entries = Mutex<[String: Entry]>([:])
    /// Tokens not called here for this long are no longer watched (their bucket here is full again by then)...
    private static let watchLimit: Duration = .seconds(2)
    /// ...and forgotten after this long.
    private static let idleLimit: Duration = .seconds(10)

    /// `perSecond` 0 turns limiting off.
    init(perSecond: Int) {
        self.perSecond = perSecond
    }

    /// - Throws: RESOURCE_EXHAUSTED with reason RATE_LIMITED and the wait in a RetryInfo.
    func admit(tokenID: String, now: ContinuousClock.Instant = .now) throws {
        guard perSecond > 0 else { return }
        let wait = entries.withLock { entries -> Duration? in
            if entries.count > 100_000 { entries.removeAll() }  // a bound on memory; a cleared bucket starts full
            var entry = entries[tokenID] ?? Entry(bucket: TokenBucket(capacity: capacity, per: .seconds(2), now: now), lastCall: now)
            let wait = entry.bucket.take(now: now)
            if wait == nil { entry.unreported += 1 }
            entry.lastCall = now
            entries[tokenID] = entry
            return wait
        }
        if let wait {
            throw RPCError(.resourceExhausted, "more than \(perSecond) calls a second with this token; slow down")
                .reason(RPCErrorReason.rateLimited, domain: GatewayErrorReason.domain, metadata: ["limit_per_second": "\(perSecond)"])
                .retry(after: wait)
        }
    }

    /// The calls granted since the last report, and the tokens called here lately; forgets tokens idle for long.
    /// Give it back to ``restore(_:)`` when it cannot be delivered.
    func report(now: ContinuousClock.Instant = .now) -> Report {
        entries.withLock { entries in
            entries = entries.filter { $0.value.lastCall.duration(to: now) < Self.idleLimit }
            var report = Report()
            for (token, entry) in entries {
                if entry.unreported > 0 {
                    report.spent[token] = entry.unreported
                    entries[token]!.unreported = 0
                } else if entry.lastCall.duration(to: now) < Self.watchLimit {
                    report.watching.append(token)
                }
            }
            return report
        }
    }

    /// Counts a report that was not delivered into the next one.
    func restore(_ report: Report) {
        entries.withLock { entries in
            for (token, spent) in report.spent { entries[token]?.unreported += spent }
        }
    }

    /// Takes the shared buckets' levels after `report` was spent from them (tokens left, by token id), less the
    /// calls granted here since the report.
    func apply(levels: [String: Double], now: ContinuousClock.Instant = .now) {
        entries.withLock { entries in
            for (token, level) in levels {
                guard var entry = entries[token] else { continue }
                entry.bucket.set(tokens: level - Double(entry.unreported), now: now)
                entries[token] = entry
            }
        }
    }
}
