import Foundation
import PlantGuideCore
import Synchronization

/// A child process started with posix_spawn, for the tests' services, tools and scripts; Foundation's `Process` is
/// not used anywhere in the tests. Its `run()` lists /proc/self/fd to close what the child must not inherit, and
/// copies each entry's name as the full 256 bytes of `d_name`: when the test process has over a thousand
/// descriptors open (sockets of the many tests running at once), the last entries sit at the end of the listing's
/// buffer and the copy reads past its mapping, and the whole test run died of SIGSEGV in `Process.run()`. Here the
/// child closes every descriptor from 3 itself (`posix_spawn_file_actions_addclosefrom_np`), and gets only what is
/// asked for on its standard input, output and error.
public final class SpawnedProcess: Sendable {
    /// How a child ended.
    public enum Ending: Sendable, Equatable, CustomStringConvertible {
        case exit(Int32)
        case signal(Int32)

        /// "exit 0", "signal 9".
        public var description: String {
            switch self {
            case .exit(let code): "exit \(code)"
            case .signal(let signal): "signal \(signal)"
            }
        }

        /// The exit code, or 128 plus the signal, as a shell reports it.
        public var shellStatus: Int32 {
            switch self {
            case .exit(let code): code
            case .signal(let signal): 128 + signal
            }
        }
    }

    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// This process's own stream.
        case inherit
        case null
        /// A descriptor of this process (a pipe's end, a log file), duplicated into the child.
        case descriptor(Int32)
    }

    public let pid: pid_t
    /// Set once the child has been reaped, by whichever caller got there first.
    private let ended = Mutex<Ending?>(nil)

    /// Starts `executable` (a path: no search of PATH) with `arguments`, in `environment` (this process's when nil).
    /// - Throws: `POSIXError` when the program cannot be started (missing, not executable).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        standardOutput: Stream = .inherit, standardError: Stream = .inherit
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (stream, target) in [(standardOutput, Int32(1)), (standardError, Int32(2))] {
            switch stream {
            case .inherit: break
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            }
        }
        _ = systemAddCloseFrom(&actions, 3)
        let argv = CStrings([executable] + arguments)
        let envp = environment.map { CStrings($0.map { "\($0.key)=\($0.value)" }) }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv.pointers, envp?.pointers ?? environ)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        self.pid = pid
    }

    /// Kills a child still running, and reaps it on a thread of its own: a child nobody waited for would stay a
    /// zombie for the rest of the test run.
    deinit {
        guard ending == nil else { return }
        Foundation.kill(pid, SIGKILL)
        let pid = pid
        Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }.start()
    }

    /// How the child ended; nil while it runs.
    public var ending: Ending? { reap(blocking: false) }

    /// Sends `signal` to the child unless it has been reaped (its pid may belong to another process by then).
    public func send(_ signal: Int32) {
        ended.withLock { ending in
            if ending == nil { _ = Foundation.kill(pid, signal) }
        }
    }

    /// Waits, on a thread of its own (never the cooperative pool), for the child to end.
    @discardableResult
    public func waitForExit() async -> Ending {
        await OwnThread.run { [self] in waitForExitBlocking() }
    }

    /// Waits for the child to end, blocking the calling thread: for threads of the test's own.
    public func waitForExitBlocking() -> Ending {
        // Wait without reaping, so that the pid stays the child's while `send` may still use it; then reap.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        return reap(blocking: true) ?? .exit(-1)
    }

    private func reap(blocking: Bool) -> Ending? {
        ended.withLock { ending in
            if let ending { return ending }
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, blocking ? 0 : WNOHANG) } while result == -1 && errno == EINTR
            guard result == pid else { return nil }
            ending = status & 0x7f == 0 ? .exit((status >> 8) & 0xff) : .signal(status & 0x7f)
            return ending
        }
    }
}

/// Strings as a NULL-terminated array of C strings (argv, envp), freed with it.
private final class CStrings {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let count: Int

    init(_ strings: [String]) {
        count = strings.count
        pointers = .allocate(capacity: count + 1)
        for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
        pointers[count] = nil
    }

    deinit {
        for index in 0..<count { free(pointers[index]) }
        pointers.deallocate()
    }
}

/// glibc's pipe2, which the Glibc module does not show: both ends close-on-exec from the start, so no process
/// spawned meanwhile by another thread inherits the write end (and keeps the read from ending).
@_silgen_name("pipe2")
func systemPipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later): the child closes every descriptor from `from`.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func systemAddCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
