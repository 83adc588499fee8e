import CZeroMQ
import Glibc

/// An eventfd that other threads write to wake an I/O thread blocked in `zmq_poll`.
final class WakeSignal: Sendable {
    let descriptor: Int32

    init() throws {
        descriptor = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard descriptor >= 0 else { throw ZMQError(number: errno, operation: "eventfd") }
    }

    deinit { Glibc.close(descriptor) }

    /// Makes the descriptor readable until `reset()`.
    func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Clears pending signals.
    func reset() {
        var value: UInt64 = 0
        _ = Glibc.read(descriptor, &value, MemoryLayout<UInt64>.size)
    }
}
