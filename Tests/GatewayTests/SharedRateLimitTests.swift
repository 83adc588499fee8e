import Foundation
@testable import Gateway
import Logging
import PlantGuideRPC
import PlantGuideStorage
import PlantGuideTestSupport
import Testing

/// Two gateway replicas' rate limiters sharing tokens' buckets in one PostgreSQL: in-process, each limiter with its
/// own exchange (as two processes have), exchanging when the test says, with time standing still (nothing refills).
@Suite("Gateway: a token's rate limit shared by replicas")
struct SharedRateLimitTests {
    /// The moment the tests' time stands at.
    private static let instant = ContinuousClock.now
    private static let seconds = 1_800_000_000.0

    /// Two replicas' limiters of 5 calls a second (bursts of 10) and their exchanges, on one PostgreSQL gateway schema.
    private static func replicas() async throws -> [(CallerRateLimiter, RateLimitExchange)] {
        let database = try await TestPostgres.open(try await TestPostgres.settings(), migrations: PostgresGateway.migrations)
        return (0..<2).map { _ in
            let limiter = CallerRateLimiter(perSecond: 5)
            var exchange = RateLimitExchange(limiter: limiter, records: PostgresGateway(database), logger: Logger(label: "test"))
            exchange.now = { (instant, seconds) }
            return (limiter, exchange)
        }
    }

    /// Exchanges with each in turn; whether every one shared.
    private static func exchange(_ exchanges: RateLimitExchange...) async throws -> Bool {
        var shared = true
        for exchange in exchanges { shared = try await exchange.exchangeOnce() && shared }
        return shared
    }

    /// How many of `attempts` calls with `token` the limiter grants.
    private static func granted(_ limiter: CallerRateLimiter, _ token: String, attempts: Int) -> Int {
        (0..<attempts).count { _ in (try? limiter.admit(tokenID: token, now: instant)) != nil }
    }

    @Test("a burst spent on one replica is owed on the other after an exchange; other tokens keep their own")
    func burstAcrossReplicas() async throws {
        let replicas = try await Self.replicas()
        let ((a, exchangeA), (b, exchangeB)) = (replicas[0], replicas[1])

        #expect(Self.granted(a, "t1", attempts: 8) == 8)
        #expect(Self.granted(b, "t1", attempts: 1) == 1, "b has not heard of a's burst yet")
        #expect(Self.granted(b, "t2", attempts: 1) == 1)
        #expect(try await Self.exchange(exchangeA, exchangeB))

        // 10 - 8 - 1 left. Alone, b would grant all 5.
        let more = Self.granted(b, "t1", attempts: 5)
        #expect(more == 1, "b granted \(more) more after seeing a's 8 of 10")
        #expect(try await Self.exchange(exchangeB, exchangeA))
        #expect(Self.granted(a, "t1", attempts: 5) == 0, "a sees b's calls too")
        #expect(Self.granted(b, "t2", attempts: 20) == 9, "t2 had spent 1 of its own 10")
    }

    @Test("a replica that only watches a token takes the level the other spent it to")
    func watching() async throws {
        let replicas = try await Self.replicas()
        let ((a, exchangeA), (b, exchangeB)) = (replicas[0], replicas[1])
        #expect(Self.granted(b, "t", attempts: 1) == 1)
        #expect(try await exchangeB.exchangeOnce())
        #expect(Self.granted(a, "t", attempts: 9) == 9)
        #expect(try await Self.exchange(exchangeA, exchangeB), "b reports nothing spent and reads the level")
        #expect(Self.granted(b, "t", attempts: 5) == 0, "none left")
    }

    @Test("on SQLite, one process alone, the exchange ends at once")
    func sqlite() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let limiter = CallerRateLimiter(perSecond: 5)
        let exchange = RateLimitExchange(limiter: limiter, records: try SQLiteGateway.open(folder: folder), logger: Logger(label: "test"))
        #expect(Self.granted(limiter, "t", attempts: 1) == 1)
        #expect(try await exchange.exchangeOnce() == false)
    }
}
