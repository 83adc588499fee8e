import Foundation
import PlantGuideRPC

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
        ExecutorStallWatch.start()
        if let value = ProcessInfo.processInfo.environment["PLANTGUIDE_TEST_SLOWNESS"].flatMap(Double.init), value >= 1 {
            return value
        }
        let cores = allowedCores() < 2 ? 2.0 : 1.0
        let fastest = (0..<3).map { _ in timeReferenceLoop() }.min() ?? referenceLoopSeconds
        return max(1, fastest / referenceLoopSeconds) * cores
    }()

    /// `duration` as long as it must be here: ``slowness`` times what it takes on the developers' machine.
    public static func scaled(_ duration: Duration) -> Duration {
        duration * slowness
    }

    /// How many cores this process may run on (`taskset` narrows them; Foundation's processor counts do not see it):
    /// the bits of the mask `Cpus_allowed` in /proc/self/status.
    static func allowedCores() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else {
            return ProcessInfo.processInfo.activeProcessorCount
        }
        let mask = line.dropFirst("Cpus_allowed:".count).filter(\.isHexDigit)
        return mask.reduce(0) { $0 + (Int(String($1), radix: 16) ?? 0).nonzeroBitCount }
    }

    /// How long ``timeReferenceLoop()`` takes in a debug build on the developers' machine (an AMD EPYC, 2 cores).
    static let referenceLoopSeconds = 0.009

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

extension RPCClientConfiguration {
    /// A client's settings in tests: calls without a deadline of their own get a minute, times ``TestTime/slowness``,
    /// not the library's 10 s. A test that is not about time must not fail because a busy machine (every test of the
    /// process starting at once, on one core) ran it slowly; one that is sets its call's deadline itself.
    public static var forTests: RPCClientConfiguration {
        var configuration = RPCClientConfiguration()
        configuration.defaultTimeout = TestTime.scaled(.seconds(60))
        return configuration
    }
}
