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
            return Outcome(status: wait(for: process), output: output)
        }
    }

    /// The exit status of `process`, reaped here with waitpid: Foundation's own watch for its exit (a SIGCHLD
    /// source) was seen to miss a script that had started a background process, leaving it a zombie and
    /// `waitUntilExit` waiting forever.
    private static func wait(for process: Process) -> Int32 {
        var status: Int32 = 0
        let pid = process.processIdentifier
        while true {
            let reaped = waitpid(pid, &status, 0)
            if reaped == pid { break }
            if reaped == -1, errno == EINTR { continue }
            // Foundation reaped it first.
            process.waitUntilExit()
            return process.terminationStatus
        }
        if status & 0x7f == 0 { return (status >> 8) & 0xff }  // exited: its code
        return 128 + (status & 0x7f)  // killed by a signal, as a shell reports it
    }
}
