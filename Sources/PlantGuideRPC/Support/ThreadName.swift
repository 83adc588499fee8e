import Glibc

/// The name the system shows for a thread (`top -H`, `perf`, /proc), which Foundation's `Thread.name` does not
/// set on Linux: a new thread keeps its creator's (often a dispatch worker's).
enum ThreadName {
    /// Names the calling thread; Linux keeps the first 15 bytes. Best effort: a failure leaves the old name.
    static func setCurrent(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
