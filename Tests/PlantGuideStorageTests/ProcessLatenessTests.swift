@testable import PlantGuideStorage
import Testing

@Suite("The awake clock")
struct ProcessLatenessTests {
    @Test("awake time is wall time less the lateness accounted for and the lateness still running; a wake-up not yet due is none")
    func awakeTime() {
        #expect(ProcessLateness.awake(elapsed: .seconds(10), total: .seconds(3), overdue: .seconds(2)) == .seconds(5))
        #expect(ProcessLateness.awake(elapsed: .seconds(10), total: .seconds(3), overdue: .milliseconds(-80)) == .seconds(7))
    }

    @Test("the clock never runs backwards and runs no faster than the wall clock")
    func monotonic() async throws {
        let meter = ProcessLateness.shared
        meter.start()
        let clock = ContinuousClock()
        var last = meter.now()
        let wallStart = clock.now
        let awakeStart = last
        for _ in 0..<20 {
            try await Task.sleep(for: .milliseconds(15))
            let now = meter.now()
            #expect(now >= last)
            last = now
        }
        #expect(last - awakeStart <= wallStart.duration(to: clock.now))
    }
}
