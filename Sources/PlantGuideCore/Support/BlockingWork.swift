import Foundation
import PlantGuideThreads

/// Runs blocking or CPU-heavy work (photo decoding, model loading, file I/O, waiting for a process) on threads of
/// its own, so that it never holds a thread of Swift's cooperative pool or of Dispatch's global queues.
///
/// The cooperative pool has as many threads as the machine has cores: on a 2-core machine two such calls made
/// directly from async code stop every other task of the process, health checks included. Dispatch's global
/// queues are as narrow, and URLSession needs them. An `await` on ``run(_:)`` gives the calling thread back
/// while the work runs on one of ``threads``.
///
/// ```swift
/// let image = try await BlockingWork.run { try ImageDecoder.decode(data, maxLongSide: 1_024) }
/// ```
public enum BlockingWork {
    /// Where the work runs: four threads per core, at least eight, so that a few long waits leave room for work.
    public static let threads = WorkerThreads(
        count: max(8, 4 * ProcessInfo.processInfo.activeProcessorCount), name: "plantguide-blocking")

    /// Runs `work` on one of ``threads`` and returns (or throws) what it does.
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await threads.run(work)
    }

    /// Runs `work`, which cannot throw, on one of ``threads`` and returns what it does.
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await threads.run(work)
    }
}
