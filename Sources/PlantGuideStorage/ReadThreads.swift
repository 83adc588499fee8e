import Foundation
import PlantGuideThreads

/// The process's threads for SQLite reads: each read runs GRDB's synchronous read on one of them, so a call's read
/// costs one hand-off there and one back. GRDB's async read costs three (its pool's waiting queue, the connection's
/// queue, the way back), each a thread wake-up, and in a profile of collection's GetPlant those cost more than the
/// read itself.
///
/// Blocking is what these threads are for: they are not Swift's cooperative pool. There are few of them (fewer than
/// GRDB's five reader connections), so a burst of reads queues here rather than waking a thread each.
final class ReadThreads: @unchecked Sendable {
    /// Shared by every SQLite database of the process.
    static let shared = ReadThreads(count: max(2, min(4, ProcessInfo.processInfo.activeProcessorCount * 2)))

    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [@Sendable () -> Void] = []

    private init(count: Int) {
        for index in 0..<count {
            Thread(named: "sqlite-read-\(index)") { [self] in work() }.start()
        }
    }

    /// Runs `body` on one of the threads and returns what it returns (or throws).
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            jobs.append { continuation.resume(with: Result(catching: body)) }
            condition.signal()
            condition.unlock()
        }
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
