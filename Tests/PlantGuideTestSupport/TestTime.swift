import Foundation

/// The one place that sizes the tests' waits for the machine they run on.
///
/// A bound in a test ("the call ends within 5 s", "the erase goes on within 5 s of the release") is written for a
/// quiet two-core machine like the developers'. On a machine three times slower, pinned to one core, or beside CPU
/// hogs, the same work takes longer, and a test that is not about speed must not fail for it. So bounds are written
/// as ``scaled(_:)``: the time it takes here, times ``slowness``.
///
/// ```swift
/// #expect(elapsed < TestTime.scaled(.seconds(5)))
/// ```
public enum TestTime {
    /// How many times slower than the developers' machine this one runs the tests, at least 1: the CPU's speed on a
    /// fixed loop, measured once per process (the faster of three rounds, so that a moment's noise does not count),
    /// times two when the process may use only one core. `PLANTGUIDE_TEST_SLOWNESS` sets it instead.
    public static let slowness: Double = {
        if let value = ProcessInfo.processInfo.environment["PLANTGUIDE_TEST_SLOWNESS"].flatMap(Double.init), value >= 1 {
            return value
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount < 2 ? 2.0 : 1.0
        let fastest = (0..<3).map { _ in timeReferenceLoop() }.min() ?? referenceLoopSeconds
        return max(1, fastest / referenceLoopSeconds) * cores
    }()

    /// `duration` as long as it must be here: ``slowness`` times what it takes on the developers' machine.
    public static func scaled(_ duration: Duration) -> Duration {
        duration * slowness
    }

    /// How long ``timeReferenceLoop()`` takes in a debug build on the developers' machine (an AMD EPYC, 2 cores).
    static let referenceLoopSeconds = 0.020

    /// Runs a fixed integer loop and returns how long it took, in seconds.
    static func timeReferenceLoop() -> Double {
        let started = DispatchTime.now().uptimeNanoseconds
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        }
        // The result is used, so that the loop is not optimised away.
        if state == 42 { print("") }
        return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    }
}
