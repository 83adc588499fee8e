import PlantGuideCore
import PropertyBased
import PlantGuideTestSupport
import Testing

@Suite("LatencyHistogram", .cpuHeavy)
struct LatencyHistogramTests {
    @Test("percentiles of 1…100,000 µs in ns are right to three significant digits")
    func percentiles() {
        var histogram = LatencyHistogram()
        for micros in 1...100_000 { histogram.record(UInt64(micros) * 1_000) }

        for (percentile, exact) in [(50.0, 50_000_000.0), (90, 90_000_000), (99, 99_000_000), (99.9, 99_900_000), (100, 100_000_000)] {
            let value = Double(histogram.value(atPercentile: percentile))
            #expect(abs(value - exact) / exact < 0.001, "p\(percentile): \(value)")
        }
        #expect(histogram.totalCount == 100_000 && histogram.max == 100_000_000 && histogram.min == 1_000)
    }

    @Test("any value lands in a bucket whose top is within 0.1% above it")
    func precision() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...Int.max)) { raw in
            var histogram = LatencyHistogram()
            histogram.record(UInt64(raw))
            let reported = histogram.value(atPercentile: 50)
            #expect(reported == UInt64(raw), "a single value is reported exactly (capped at the max)")
            var two = LatencyHistogram()
            two.record(UInt64(raw))
            two.record(UInt64.max / 2)
            let low = two.value(atPercentile: 50)
            #expect(low >= UInt64(raw) && Double(low - UInt64(raw)) <= Swift.max(1, Double(raw) * 0.001))
        }
    }

    @Test("merging adds counts")
    func merge() {
        var a = LatencyHistogram()
        var b = LatencyHistogram()
        for value in 1...10 { a.record(UInt64(value)) }
        for value in 11...20 { b.record(UInt64(value)) }
        a.add(b)
        #expect(a.totalCount == 20 && a.value(atPercentile: 50) == 10 && a.max == 20 && a.min == 1)
    }
}
