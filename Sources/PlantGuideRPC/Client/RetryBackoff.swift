/// Exponential back-off with full jitter (a uniform pause between zero and the current ceiling), as gRPC's
/// retry policy and AWS's advice do it: retries from many clients spread out instead of arriving together.
struct RetryBackoff {
    private var ceiling: Duration
    private let maximum: Duration

    init(initial: Duration, maximum: Duration) {
        ceiling = initial
        self.maximum = maximum
    }

    /// The next pause; the ceiling doubles up to the maximum.
    mutating func next<Generator: RandomNumberGenerator>(using generator: inout Generator) -> Duration {
        let nanos = max(1, ceiling.nanosecondsApproximation)
        let pause = Duration.nanoseconds(Int64.random(in: 0...nanos, using: &generator))
        ceiling = min(ceiling * 2, maximum)
        return pause
    }

    mutating func next() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return next(using: &generator)
    }
}

extension Duration {
    var nanosecondsApproximation: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
