import Synchronization

/// Something that owns a thread and runs jobs handed to it (the process's ``IOThread``).
package protocol JobRunner: AnyObject, Sendable {
    /// Queues `job` to run on the owner's thread; returns false when the owner has stopped.
    func enqueueJob(_ job: UnownedJob) -> Bool
}

/// A `TaskExecutor` whose jobs run on the process's RPC I/O thread, between its socket reads and writes
/// (SE-0417).
///
/// Tasks that prefer it — short handlers, or a caller's call loop — skip the hops to Swift's global pool and
/// back, which dominate the cost of small calls. Work that blocks or computes for long must not run here: it
/// would hold up every call of the process.
public final class IOThreadExecutor: TaskExecutor, @unchecked Sendable {
    private weak var runner: (any JobRunner)?

    package init() {}

    package func attach(_ runner: any JobRunner) { self.runner = runner }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        if runner?.enqueueJob(unowned) != true {
            // The thread has stopped: let the global pool finish the task rather than strand it.
            globalConcurrentExecutor.enqueue(ExecutorJob(unowned))
        }
    }

    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }

    /// Runs `jobs` on the calling thread, which must be the owner's.
    package func run(_ jobs: [UnownedJob]) {
        let executor = asUnownedTaskExecutor()
        for job in jobs { job.runSynchronously(on: executor) }
    }

    /// Runs `job` on the calling thread, which must be the owner's.
    package func run(_ job: UnownedJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}
