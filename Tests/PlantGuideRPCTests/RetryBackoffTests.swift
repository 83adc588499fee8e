@testable import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("Retry back-off, alone")
struct RetryBackoffTests {
    @Test("each pause is jittered below a ceiling that doubles from the initial pause up to the maximum")
    func ceilings() {
        var backoff = RetryBackoff(initial: .milliseconds(50), maximum: .milliseconds(1_000))
        var generator = SplitMix64(seed: 42)
        let ceilings: [Duration] = [50, 100, 200, 400, 800, 1_000, 1_000, 1_000].map { .milliseconds($0) }

        for ceiling in ceilings {
            let pause = backoff.next(using: &generator)
            #expect(pause >= .zero && pause <= ceiling, "\(pause) within \(ceiling)")
        }
    }

    @Test("the jitter spreads pauses over the whole range, so callers retrying together do not stay in step")
    func jitter() {
        var generator = SplitMix64(seed: 7)
        let pauses = (0..<1_000).map { _ in
            var backoff = RetryBackoff(initial: .milliseconds(100), maximum: .seconds(1))
            return backoff.next(using: &generator)
        }

        #expect(pauses.min()! < .milliseconds(10) && pauses.max()! > .milliseconds(90))
        #expect(Set(pauses).count > 900, "hardly any two callers pause alike")
    }
}
