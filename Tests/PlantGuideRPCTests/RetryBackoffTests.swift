@testable import PlantGuideRPC
import Testing

@Suite("Retry back-off, alone")
struct RetryBackoffTests {
    /// SplitMix64: the same pauses on every run.
    private struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }

    @Test("each pause is jittered below a ceiling that doubles from the initial pause up to the maximum")
    func ceilings() {
        var backoff = RetryBackoff(initial: .milliseconds(50), maximum: .milliseconds(1_000))
        var generator = SeededGenerator(state: 42)
        let ceilings: [Duration] = [50, 100, 200, 400, 800, 1_000, 1_000, 1_000].map { .milliseconds($0) }

        for ceiling in ceilings {
            let pause = backoff.next(using: &generator)
            #expect(pause >= .zero && pause <= ceiling, "\(pause) within \(ceiling)")
        }
    }

    @Test("the jitter spreads pauses over the whole range, so callers retrying together do not stay in step")
    func jitter() {
        var generator = SeededGenerator(state: 7)
        let pauses = (0..<1_000).map { _ in
            var backoff = RetryBackoff(initial: .milliseconds(100), maximum: .seconds(1))
            return backoff.next(using: &generator)
        }

        #expect(pauses.min()! < .milliseconds(10) && pauses.max()! > .milliseconds(90))
        #expect(Set(pauses).count > 900, "hardly any two callers pause alike")
    }
}
