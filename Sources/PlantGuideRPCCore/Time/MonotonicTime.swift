import Glibc

/// Nanoseconds on the monotonic clock: what deadlines are measured in on the I/O threads (a plain integer, so that
/// a transport's loop compares and stores them without the cost of `ContinuousClock.Instant`).
public struct MonotonicTime: Comparable, Hashable, Sendable {
    public var nanoseconds: UInt64

    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    public static func now() -> MonotonicTime {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MonotonicTime(nanoseconds: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
    }

    public static func < (lhs: MonotonicTime, rhs: MonotonicTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// `self` moved forward by `duration` (negative durations count as zero, and a time beyond the clock's range is
    /// its end: a caller's "no deadline" of centuries must not wrap into the past).
    public func advanced(by duration: Duration) -> MonotonicTime {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return self }
        let (whole, wholeOverflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (nanos, nanosOverflow) = whole.addingReportingOverflow(UInt64(max(attoseconds, 0) / 1_000_000_000))
        let (sum, overflow) = nanoseconds.addingReportingOverflow(nanos)
        return MonotonicTime(nanoseconds: wholeOverflow || nanosOverflow || overflow ? .max : sum)
    }

    /// The time since `earlier`, zero when `earlier` is not earlier.
    public func duration(since earlier: MonotonicTime) -> Duration { earlier.duration(until: self) }

    /// The time from `self` until `later`, zero when `later` is not later.
    public func duration(until later: MonotonicTime) -> Duration {
        later.nanoseconds > nanoseconds ? .nanoseconds(Int64(clamping: later.nanoseconds - nanoseconds)) : .zero
    }

    /// Milliseconds from `self` until `later`, rounded up, zero when `later` is not later.
    public func milliseconds(until later: MonotonicTime) -> UInt64 {
        guard later.nanoseconds > nanoseconds else { return 0 }
        return (later.nanoseconds - nanoseconds + 999_999) / 1_000_000
    }
}
