import Foundation

/// Runs a wait that may last long (a child process to its end, a load generator's blocking sockets) on a new OS
/// thread of its own: never on Swift's cooperative pool, and never on ``BlockingWork``'s few threads, where a
/// handful of such waits would hold up the photo decoding and file work running beside them.
public enum OwnThread {
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try work() }) }.start()
        }
    }

    public static func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }
}
