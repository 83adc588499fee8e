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

    /// Starts `count` threads named `name`, each at scheduling priority `niceness` (0: the process's own; higher
    /// numbers yield the cores to the process's other threads when both want them, as `nice` does).
    public init(count: Int, name: String, niceness: Int32 = 0) {
        for index in 0..<max(1, count) {
            Thread(named: "\(name)-\(index)") { [self] in
                // On Linux the nice value is a thread's own: `who` 0 is the calling thread.
                if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
                work()
            }.start()
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
