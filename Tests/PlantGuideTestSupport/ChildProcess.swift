import Foundation
import PlantGuideCore

/// Runs a program to its end for a test, on a thread of its own: reading its output and waiting for its exit
/// block, and must never hold one of the cooperative pool's threads (two such waits stall every test).
public enum ChildProcess {
    /// How the program ended and what it printed.
    public struct Outcome: Sendable {
        /// The exit code, or 128 plus the signal that ended it.
        public var status: Int32
        /// Standard output, and standard error too when `mergingStandardError` was set.
        public var output: String
    }

    /// Runs `executable` with `arguments` (and `environment` added to this process's) and returns its exit status
    /// and output.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], mergingStandardError: Bool = false
    ) async throws -> Outcome {
        let merged = environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 }
        return try await OwnThread.run {
            var fds: [Int32] = [0, 0]
            guard systemPipe2(&fds, O_CLOEXEC) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let reading = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
            let child: SpawnedProcess
            do {
                defer { close(fds[1]) }
                child = try SpawnedProcess(
                    executable.path, arguments, environment: merged, standardOutput: .descriptor(fds[1]),
                    standardError: mergingStandardError ? .descriptor(fds[1]) : .inherit)
            }
            let output = String(decoding: reading.readDataToEndOfFile(), as: UTF8.self)
            return Outcome(status: child.waitForExitBlocking().shellStatus, output: output)
        }
    }
}
