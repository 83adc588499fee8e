import PlantGuideCore
import PlantGuideThreads
import Testing

/// Runs a test (or every test of a suite) on threads of its own instead of Swift's cooperative pool, for tests
/// whose synchronous work takes seconds of CPU in a debug build: loading models, making and decoding large
/// images, long loops. The cooperative pool has one thread per core (two here); two such tests on it at once
/// would stall every other test of the process, including those that measure deadlines. (Dispatch's global
/// queues are no better: as narrow, and URLSession needs them.)
///
/// ```swift
/// @Suite(.cpuHeavy) struct ImageDecoderTests { ... }
/// ```
public struct CPUHeavyTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(WorkerThreadsExecutor.shared) { try await function() }
    }
}

extension Trait where Self == CPUHeavyTrait {
    /// Run off the cooperative pool: see ``CPUHeavyTrait``.
    public static var cpuHeavy: Self { CPUHeavyTrait() }
}

/// A task executor whose jobs run on ``WorkerThreads`` of its own.
final class WorkerThreadsExecutor: TaskExecutor {
    static let shared = WorkerThreadsExecutor()
    private let threads = WorkerThreads(count: 2, name: "plantguide-cpu-heavy-test")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        threads.submit { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
