import CZeroMQ

/// The process-wide libzmq context. Every socket of the RPC layer lives in it, so `inproc://` monitor endpoints
/// connect; it is never terminated (sockets close with LINGER 0, so process exit does not wait on them).
final class ZMQContext: @unchecked Sendable {
    static let shared = ZMQContext()

    let handle: UnsafeMutableRawPointer

    private init() {
        guard let handle = zmq_ctx_new() else { fatalError("zmq_ctx_new failed: \(ZMQError.last("zmq_ctx_new"))") }
        self.handle = handle
    }
}

/// A libzmq call failed.
struct ZMQError: Error, CustomStringConvertible {
    /// The `errno` libzmq reported.
    let number: Int32
    /// The call that failed, with its argument when that helps ("bind tcp://127.0.0.1:7003").
    let operation: String

    var description: String { "\(operation): \(String(cString: zmq_strerror(number)))" }

    static func last(_ operation: String) -> ZMQError { ZMQError(number: zmq_errno(), operation: operation) }
}
