import Foundation
import Logging
import Synchronization

/// In debug builds, catches what holds the RPC I/O thread: a job that ran there computing for longer than
/// ``threshold``, or blocked (a synchronous read, a lock, a sleep) for longer, is reported, naming the handlers
/// running on the thread then. Every handler placed on the I/O thread must only await; this is how a test finds one
/// that does not.
///
/// Time the job spent waiting for a core (a busy machine) is neither: the kernel's scheduler statistics
/// (`/proc/thread-self/schedstat`) tell it apart, so a loaded test run does not report a handler that only waited.
/// Release builds measure nothing.
public enum IOThreadWatchdog {
    /// One job that held the thread.
    public struct Report: Sendable, CustomStringConvertible {
        /// The methods whose handlers were running on the I/O thread then, sorted; empty when none was (a task
        /// that prefers the thread's executor, such as the gateway's web pages).
        public let methods: [String]
        public let wall: Duration
        public let cpu: Duration
        /// Off the CPU for another reason than waiting for a core: blocked.
        public let blocked: Duration

        public var description: String {
            "the RPC I/O thread was held \(wall.fractionalMilliseconds) ms (computing \(cpu.fractionalMilliseconds) ms, blocked "
                + "\(blocked.fractionalMilliseconds) ms) while "
                + (methods.isEmpty ? "no handler was running on it" : "running \(methods.joined(separator: ", "))")
        }
    }

    /// How long one job may hold the thread: PLANTGUIDE_IO_WATCHDOG_MS, else 10 ms (a debug build's protobuf and
    /// SQLite code is several times slower than a release build's).
    public static let threshold: Duration = .milliseconds(
        ProcessInfo.processInfo.environment["PLANTGUIDE_IO_WATCHDOG_MS"].flatMap(Int.init) ?? 10)

    /// Every report so far (at most the last 1,000).
    public static var reports: [Report] { recorded.withLock { $0 } }

    private static let recorded = Mutex<[Report]>([])
    private static let logger = Logger(label: "plantguide.rpc.watchdog")
    /// The methods running on the thread, with how many calls of each. The I/O thread only.
    nonisolated(unsafe) private static var running: [String: Int] = [:]

    /// A handler of `method` started on the I/O thread. The I/O thread only.
    static func began(_ method: String) {
        #if DEBUG
        running[method, default: 0] += 1
        #endif
    }

    /// A handler of `method` that ran on the I/O thread is done. The I/O thread only.
    static func ended(_ method: String) {
        #if DEBUG
        if let count = running[method] { running[method] = count > 1 ? count - 1 : nil }
        #endif
    }

    #if DEBUG
    /// Runs `job`, measured. The I/O thread only; debug builds only (release builds run their jobs unmeasured).
    static func measure(_ job: () -> Void) {
        let before = Sample()
        job()
        let after = Sample()
        let wall = Duration.nanoseconds(after.wall - before.wall)
        guard wall > threshold else { return }
        let cpu = Duration.nanoseconds(after.cpu - before.cpu)
        let waitingForCore = Duration.nanoseconds(after.runDelay - before.runDelay)
        let blocked = max(.zero, wall - cpu - waitingForCore)
        guard cpu > threshold || blocked > threshold else { return }
        let report = Report(methods: running.keys.sorted(), wall: wall, cpu: cpu, blocked: blocked)
        logger.warning("\(report)")
        recorded.withLock { reports in
            if reports.count >= 1_000 { reports.removeFirst() }
            reports.append(report)
        }
    }

    /// The calling thread's clocks: the monotonic clock, and the scheduler's own account of the thread (time on a
    /// core, time waiting for one), read from a descriptor the I/O thread keeps open.
    private struct Sample {
        let wall: Int64
        let cpu: Int64
        let runDelay: Int64

        private static let statistics: Int32 = open("/proc/thread-self/schedstat", O_RDONLY)

        init() {
            var spec = timespec()
            clock_gettime(CLOCK_MONOTONIC, &spec)
            wall = Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
            var text = [UInt8](repeating: 0, count: 96)
            let count = Self.statistics >= 0 ? pread(Self.statistics, &text, text.count - 1, 0) : -1
            let fields = count > 0 ? String(decoding: text[..<count], as: UTF8.self).split(separator: " ").compactMap { Int64($0) } : []
            if fields.count >= 2 {
                cpu = fields[0]
                runDelay = fields[1]
            } else {
                // No scheduler statistics: the thread's CPU clock, and no way to tell waiting for a core from blocking.
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
                cpu = Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
                runDelay = 0
            }
        }
    }
    #endif
}
