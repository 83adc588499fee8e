import Foundation
import PlantGuideThreads

/// A fixed set of OS threads that run submitted work in order of submission.
///
/// Unlike Dispatch's global queues, whose width is the number of cores and which URLSession and other
/// libraries share, these threads belong to no one else: CPU-heavy or blocking work here can neither starve
/// Swift's cooperative pool nor Dispatch, and the kernel shares the cores fairly between them all.
public final class WorkerThreads: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0

    /// How the threads' work competes for the cores with the process's other threads.
    public enum Priority: Sendable {
        /// As the rest of the process.
        case normal
        /// Only on cores nothing else wants (Linux's SCHED_IDLE): work that may wait, so that it never slows the
        /// process's calls, such as password hashing.
        case idle
    }

    /// Starts `count` threads named `name`, scheduled as `priority` says.
    public init(count: Int, name: String, priority: Priority = .normal) {
        for index in 0..<max(1, count) {
            Thread(named: "\(name)-\(index)") { [self] in
                if priority == .idle { Self.scheduleCurrentThreadWhenIdle() }
                work()
            }.start()
        }
    }

    /// Puts the calling thread under SCHED_IDLE (on Linux a thread's own policy: pid 0 is the calling thread).
    /// Best effort: where the policy is not allowed, the thread keeps the normal one.
    private static func scheduleCurrentThreadWhenIdle() {
        var parameters = sched_param()
        parameters.sched_priority = 0
        let schedIdle: Int32 = 5  // SCHED_IDLE, which Glibc's module map leaves out (a _GNU_SOURCE name)
        _ = sched_setscheduler(0, schedIdle, &parameters)
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
