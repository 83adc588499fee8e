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

    @Test("a level set from a shared bucket replaces its own, owing at most one bucketful")
    func setLevel() {
        var bucket = TokenBucket(capacity: 10, per: .seconds(10), now: start)
        bucket.set(tokens: 1, now: start)
        #expect(bucket.take(now: start) == nil)
        #expect(bucket.take(now: start) == .seconds(1))

        bucket.set(tokens: -50, now: start)
        #expect(bucket.take(now: start) == .seconds(11), "owes 10, so 11 tokens' time until the next")
        bucket.set(tokens: 50, now: start)
        for _ in 0..<10 { #expect(bucket.take(now: start) == nil) }
        #expect(bucket.take(now: start) != nil)
    }
}
