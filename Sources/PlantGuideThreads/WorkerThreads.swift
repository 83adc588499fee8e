import Foundation

/// A fixed set of OS threads that run submitted work in order of submission.
///
/// Unlike Dispatch's global queues, whose width is the number of cores and which URLSession and other
/// libraries share, these threads belong to no one else: CPU-heavy or blocking work here can neither starve
/// Swift's cooperative pool nor Dispatch, and the kernel shares the cores fairly between them all.
public final class WorkerThreads: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0

    /// Starts `count` threads named `name`, each at nice value `niceness` (0: the process's own; higher values
    /// give the process's other threads the cores first when both want them, in proportion, as `nice` does).
    ///
    /// Not SCHED_IDLE: a thread that runs only on idle cores can be preempted while it holds a lock the rest of
    /// the process needs (the executor's, malloc's) and then wait for an idle core for seconds, stalling them all;
    /// a nice thread still gets its share within a few milliseconds.
    public init(count: Int, name: String, niceness: Int32 = 0) {
        for index in 0..<max(1, count) {
            Thread(named: "\(name)-\(index)") { [self] in
                // On Linux the nice value is a thread's own: `who` 0 is the calling thread.
                if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
                work()
            }.start()
        }
    }

    /// Runs `work` on one of the threads and returns (or throws) what it does; the awaiting task's thread is free
    /// meanwhile.
    public func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Swift.Result { try work() }) }
        }
    }

    /// Runs `work`, which cannot throw, on one of the threads and returns what it does.
    public func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: work()) }
        }
    }

    /// Queues `job` to run on one of the threads.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job()
        }
    }
}
