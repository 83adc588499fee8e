import PlantGuideCore
import Testing

@Suite("TokenBucket")
struct TokenBucketTests {
    private let start = ContinuousClock.now

    @Test("grants its capacity at once, then one token per period/capacity")
    func refill() {
        var bucket = TokenBucket(capacity: 60, per: .seconds(60), now: start)
        for _ in 0..<60 { #expect(bucket.take(now: start) == nil) }

        let wait = bucket.take(now: start)

        #expect(wait == .seconds(1))
        #expect(bucket.take(now: start + .milliseconds(999)) != nil)
        #expect(bucket.take(now: start + .seconds(1)) == nil)
    }

    @Test("never holds more than its capacity")
    func capped() {
        var bucket = TokenBucket(capacity: 2, per: .seconds(60), now: start)
        let later = start + .seconds(3_600)
        #expect(bucket.take(now: later) == nil)
        #expect(bucket.take(now: later) == nil)
        #expect(bucket.take(now: later) != nil)
    }

    @Test("a block (a 429) holds every token until it ends")
    func block() {
        var bucket = TokenBucket(capacity: 60, per: .seconds(60), now: start)
        bucket.block(until: start + .seconds(30))

        #expect(bucket.take(now: start + .seconds(10)) == .seconds(20))
        #expect(bucket.take(now: start + .seconds(31)) == nil)
    }
}
