import Foundation
import PlantGuideCore

/// Runs a program to its end for a test, on a thread of its own: reading its output and waiting for its exit
/// block, and must never hold one of the cooperative pool's threads (two such waits stall every test).
public enum ChildProcess {
    /// How the program ended and what it printed.
    public struct Outcome: Sendable {
        public var status: Int32
        /// Standard output, and standard error too when `mergingStandardError` was set.
        public var output: String
    }

    /// Runs `executable` with `arguments` (and `environment` added to this process's) and returns its exit status
    /// and output.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], mergingStandardError: Bool = false
    ) async throws -> Outcome {
        try await OwnThread.run {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
            let pipe = Pipe()
            process.standardOutput = pipe
            if mergingStandardError { process.standardError = pipe }
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return Outcome(status: process.terminationStatus, output: output)
        }
    }
}
