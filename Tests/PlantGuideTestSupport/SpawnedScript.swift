import Foundation
import PlantGuideCore

/// Runs a shell script to its end with posix_spawn and waitpid, on a thread of its own, for scripts that leave
/// processes running behind them (a server, a watcher). With Foundation's `Process` such a script took every open
/// descriptor of the test process along, other tests' pipes included, so that their readers never saw the end;
/// here the script gets standard input, output and error only. Foundation never learns of these children, so
/// reaping them here does not disturb its watch of its own.
enum SpawnedScript {
    struct Outcome: Sendable {
        var status: Int32
        var output: String
    }

    /// Runs `bash script arguments…`; standard error joins the output when `mergingStandardError`.
    static func run(_ script: String, _ arguments: [String], mergingStandardError: Bool) async throws -> Outcome {
        try await OwnThread.run {
            var fds: [Int32] = [0, 0]
            guard systemPipe2(&fds, O_CLOEXEC) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            if mergingStandardError { posix_spawn_file_actions_adddup2(&actions, fds[1], 2) }
            // Nothing else of this process goes with it: Foundation's pipes are not close-on-exec, and a server the
            // script leaves running would otherwise hold another test's pipe open and its reader waiting forever.
            _ = systemAddCloseFrom(&actions, 3)
            let argv: [UnsafeMutablePointer<CChar>?] = (["/bin/bash", script] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv, environ)
            close(fds[1])
            guard spawned == 0 else {
                close(fds[0])
                throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
            }
            let output = String(decoding: FileHandle(fileDescriptor: fds[0], closeOnDealloc: true).readDataToEndOfFile(), as: UTF8.self)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            return Outcome(status: code, output: output)
        }
    }
}

/// glibc's pipe2, which the Glibc module does not show: both ends close-on-exec from the start, so no process
/// spawned meanwhile by another thread inherits the write end (and keeps the read from ending).
@_silgen_name("pipe2")
private func systemPipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later): the child closes every descriptor from `from`.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func systemAddCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
