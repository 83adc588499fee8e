@testable import PlantGuideRPC
import Testing

@Suite("Monotonic time")
struct MonotonicTimeTests {
    @Test("a deadline centuries away is the clock's end, not a time wrapped into the past; the time until it is the longest duration")
    func farDeadlinesSaturate() {
        let now = MonotonicTime(nanoseconds: 5_000_000_000)
        #expect(now.advanced(by: .seconds(2)) == MonotonicTime(nanoseconds: 7_000_000_000))
        #expect(now.advanced(by: .milliseconds(-3)) == now)
        // 10^12 s is beyond UInt64 nanoseconds (about 584 years): a wrapping product would land before `now`.
        #expect(now.advanced(by: .seconds(1_000_000_000_000)) == MonotonicTime(nanoseconds: .max))
        #expect(now.advanced(by: .seconds(Int64.max)) == MonotonicTime(nanoseconds: .max))
        #expect(MonotonicTime(nanoseconds: 0).duration(until: MonotonicTime(nanoseconds: .max)) == .nanoseconds(Int64.max))
        #expect(now.duration(until: MonotonicTime(nanoseconds: 1)) == .zero)
        #expect(now.milliseconds(until: now.advanced(by: .microseconds(1))) == 1)
    }
}
