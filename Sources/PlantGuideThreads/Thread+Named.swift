import Foundation
import Glibc

extension Thread {
    /// A thread, not yet started, that runs `body` under the OS name `name`: what `top -H`, `perf` and
    /// `/proc/<pid>/task/*/comm` show for it, so that an operator can tell the process's threads apart.
    ///
    /// Foundation's `Thread.name` cannot be relied on for this on Linux: set before `start()` it never reaches the
    /// OS, and set by the thread itself it reaches it only when the starting thread has already recorded the new
    /// thread's handle, a race the new thread loses a few times in a hundred. The thread names itself through
    /// `/proc/thread-self/comm` instead, before `body` runs. Linux keeps the first 15 bytes.
    public convenience init(named name: String, body: @escaping @Sendable () -> Void) {
        self.init {
            Self.nameCurrentThread(name)
            body()
        }
        self.name = name
    }

    /// Names the calling OS thread. Best effort: when /proc cannot be written, the thread keeps its old name.
    private static func nameCurrentThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
