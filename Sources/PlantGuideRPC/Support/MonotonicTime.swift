import Glibc

/// Nanoseconds on the monotonic clock: what deadlines are measured in on the I/O threads.
struct MonotonicTime: Comparable, Hashable, Sendable {
    var nanoseconds: UInt64

    static func now() -> MonotonicTime {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MonotonicTime(nanoseconds: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
    }

    static func < (lhs: MonotonicTime, rhs: MonotonicTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// `self` moved forward by `duration` (negative durations count as zero).
    func advanced(by duration: Duration) -> MonotonicTime {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return self }
        let nanos = UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
        let (sum, overflow) = nanoseconds.addingReportingOverflow(nanos)
        return MonotonicTime(nanoseconds: overflow ? .max : sum)
    }

    /// The time since `earlier`, zero when `earlier` is not earlier.
    func duration(since earlier: MonotonicTime) -> Duration { earlier.duration(until: self) }

    /// The time from `self` until `later`, zero when `later` is not later.
    func duration(until later: MonotonicTime) -> Duration {
        later.nanoseconds > nanoseconds ? .nanoseconds(Int64(later.nanoseconds - nanoseconds)) : .zero
    }

    /// Milliseconds from `self` until `later`, rounded up, zero when `later` is not later.
    func milliseconds(until later: MonotonicTime) -> UInt64 {
        guard later.nanoseconds > nanoseconds else { return 0 }
        return (later.nanoseconds - nanoseconds + 999_999) / 1_000_000
    }
}
