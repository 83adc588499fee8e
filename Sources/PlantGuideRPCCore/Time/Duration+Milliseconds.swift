extension Duration {
    /// Whole milliseconds, rounded down: for socket options and poll timeouts.
    package var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    /// Milliseconds to the microsecond: for the durations log lines report.
    public var fractionalMilliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds * 1_000_000 + attoseconds / 1_000_000_000_000) / 1_000
    }
}
