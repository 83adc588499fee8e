/// A latency histogram in the manner of HdrHistogram: log-linear buckets (2,048 linear sub-buckets per power of
/// two), so every recorded value is kept to three significant digits at any magnitude, in constant memory.
public struct LatencyHistogram: Sendable {
    private static let subBucketBits = 11
    private static let subBuckets = 1 << subBucketBits
    private var counts: [UInt64]
    public private(set) var totalCount: UInt64 = 0
    public private(set) var max: UInt64 = 0
    public private(set) var min: UInt64 = .max

    /// Values (nanoseconds, or any unit) from 0 to 2^63.
    public init() {
        counts = [UInt64](repeating: 0, count: (64 - Self.subBucketBits + 1) * Self.subBuckets)
    }

    public mutating func record(_ value: UInt64) {
        counts[Self.index(of: value)] += 1
        totalCount += 1
        max = Swift.max(max, value)
        min = Swift.min(min, value)
    }

    /// Adds another histogram's counts.
    public mutating func add(_ other: LatencyHistogram) {
        for index in counts.indices { counts[index] += other.counts[index] }
        totalCount += other.totalCount
        max = Swift.max(max, other.max)
        min = Swift.min(min, other.min)
    }

    /// The value at `percentile` (0–100): the highest value of the bucket where that share of values is reached.
    public func value(atPercentile percentile: Double) -> UInt64 {
        guard totalCount > 0 else { return 0 }
        let wanted = Swift.max(1, UInt64((percentile / 100 * Double(totalCount)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, count) in counts.enumerated() where count > 0 {
            seen += count
            if seen >= wanted { return Swift.min(Self.highestValue(in: index), max) }
        }
        return max
    }

    /// Bucket 0 holds values below 2,048 exactly; above, each power of two is split into 1,024 steps.
    static func index(of value: UInt64) -> Int {
        guard value >= UInt64(subBuckets) else { return Int(value) }
        let magnitude = 63 - value.leadingZeroBitCount - (subBucketBits - 1)  // ≥ 1
        let subBucket = Int(value >> UInt64(magnitude)) - subBuckets / 2  // 0 ..< 1024
        return subBuckets + (magnitude - 1) * (subBuckets / 2) + subBucket
    }

    static func highestValue(in index: Int) -> UInt64 {
        guard index >= subBuckets else { return UInt64(index) }
        let magnitude = (index - subBuckets) / (subBuckets / 2) + 1
        let subBucket = (index - subBuckets) % (subBuckets / 2) + subBuckets / 2
        return (UInt64(subBucket + 1) << UInt64(magnitude)) - 1
    }
}
