import PostgresNIO
import Synchronization

/// How late this process runs, and a clock that leaves that lateness out.
///
/// A process starved of CPU (other processes on its cores, its own threads all busy) hears every answer late. If it
/// measured a server's silence on the wall clock, its own delay would read as the server's outage. So the stores
/// measure silence and patience on the *awake clock*: wall time less the time this process was late.
///
/// Lateness is measured by a ticker that asks for a wake-up every 100 ms on the cooperative thread pool and notes how
/// much later it woke, then asks an event loop of the database driver to run a job and notes how long that took:
/// the time a task waits for a thread or a thread for a CPU, and the time a connection's event loop was too busy to
/// read an answer. Time not yet accounted for (a tick overdue now) is left out too, so the clock never runs on through
/// a stall that is still going on.
final class ProcessLateness: Sendable {
    /// The process's one meter, started by the first store that needs it.
    static let shared = ProcessLateness()

    /// How often the ticker asks to wake.
    static let interval = Duration.milliseconds(100)

    private struct State {
        /// Lateness accounted for so far.
        var total = Duration.zero
        /// From when the time until the ticker's next report counts as lateness; nil while it is not late.
        var lateSince: ContinuousClock.Instant?
        var started = false
    }

    private let state = Mutex(State())
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    init() {
        origin = clock.now
    }

    /// The time on the awake clock: since an arbitrary origin, less every moment this process was late.
    func now() -> Duration {
        let now = clock.now
        return state.withLock { state in
            Self.awake(elapsed: origin.duration(to: now), total: state.total,
                       overdue: state.lateSince.map { $0.duration(to: now) } ?? .zero)
        }
    }

    /// The awake time after `elapsed` of wall time, `total` of it late and `overdue` late but not yet accounted for.
    static func awake(elapsed: Duration, total: Duration, overdue: Duration) -> Duration {
        elapsed - total - max(.zero, overdue)
    }

    /// Starts the ticker, once; it runs as long as the process.
    func start() {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        Task.detached(priority: .high) { [self] in await tick() }
    }

    private func tick() async {
        while true {
            let expected = clock.now + Self.interval
            state.withLock { $0.lateSince = expected }
            try? await Task.sleep(until: expected, clock: clock)
            let woke = clock.now
            account(late: expected.duration(to: woke), lateSince: woke)
            // The driver's event loop: a job submitted now runs once the loop has read what it had to read.
            _ = try? await PostgresConnection.defaultEventLoopGroup.any().submit {}.get()
            let back = clock.now
            account(late: woke.duration(to: back), lateSince: nil)
        }
    }

    private func account(late: Duration, lateSince: ContinuousClock.Instant?) {
        state.withLock { state in
            state.total += max(.zero, late)
            state.lateSince = lateSince
        }
    }
}
