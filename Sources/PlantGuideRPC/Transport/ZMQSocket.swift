import CZeroMQ
import Glibc

/// One libzmq socket. Not thread-safe, like the socket it wraps: the RPC layer creates, uses and closes each one
/// on the single thread that owns it.
final class ZMQSocket {
    let handle: UnsafeMutableRawPointer
    private let scratch: UnsafeMutablePointer<zmq_msg_t>
    private var isClosed = false

    /// Outcome of a non-blocking send.
    enum SendResult {
        case sent
        /// The high-water mark is reached, or (with ZMQ_IMMEDIATE) no peer is connected.
        case wouldBlock
        /// ROUTER_MANDATORY: the peer the reply is for has gone.
        case unroutable
        case failed(ZMQError)
    }

    init(type: Int32) throws {
        guard let handle = zmq_socket(ZMQContext.shared.handle, type) else { throw ZMQError.last("zmq_socket") }
        self.handle = handle
        scratch = .allocate(capacity: 1)
        try set(ZMQ_LINGER, 0)
    }

    deinit {
        close()
        scratch.deallocate()
    }

    func set(_ option: Int32, _ value: Int32) throws {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size) == 0 else {
            throw ZMQError.last("zmq_setsockopt \(option)")
        }
    }

    func set(_ option: Int32, int64 value: Int64) throws {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size) == 0 else {
            throw ZMQError.last("zmq_setsockopt \(option)")
        }
    }

    func bind(_ endpoint: String) throws {
        guard zmq_bind(handle, endpoint) == 0 else { throw ZMQError.last("bind \(endpoint)") }
    }

    func connect(_ endpoint: String) throws {
        guard zmq_connect(handle, endpoint) == 0 else { throw ZMQError.last("connect \(endpoint)") }
    }

    /// The endpoint last bound, with the real port when bound to port 0 (`tcp://127.0.0.1:41234`).
    var lastEndpoint: String {
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        guard zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        zmq_close(handle)
    }

    /// Receives one whole multipart message without blocking, or returns nil when none is waiting.
    ///
    /// `handle` gets every frame before the last (routing identity, delimiter) as ``RoutingFrames`` and the last
    /// frame, the body, as a buffer valid only during the call.
    func receive<T>(_ handle: (RoutingFrames, UnsafeRawBufferPointer) -> T) throws -> T? {
        var envelope = RoutingFrames()
        while true {
            zmq_msg_init(scratch)
            defer { zmq_msg_close(scratch) }
            if zmq_msg_recv(scratch, self.handle, ZMQ_DONTWAIT) < 0 {
                let error = zmq_errno()
                if error == EAGAIN && envelope.isEmpty { return nil }
                if error == EINTR && envelope.isEmpty { return nil }
                throw ZMQError(number: error, operation: "zmq_msg_recv")
            }
            let frame = UnsafeRawBufferPointer(start: zmq_msg_data(scratch), count: zmq_msg_size(scratch))
            if zmq_msg_more(scratch) == 0 {
                return handle(envelope, frame)
            }
            envelope.append(frame)
        }
    }

    /// Sends one frame without blocking; `more` marks it as a part followed by others.
    func send(_ bytes: UnsafeRawBufferPointer, more: Bool = false) -> SendResult {
        let flags = ZMQ_DONTWAIT | (more ? ZMQ_SNDMORE : 0)
        if zmq_send(handle, bytes.baseAddress, bytes.count, flags) >= 0 { return .sent }
        return Self.result(ofFailed: "zmq_send")
    }

    /// Sends one frame of `size` bytes written in place by `fill` (one copy, straight into libzmq's buffer).
    func send(size: Int, fill: (UnsafeMutableRawBufferPointer) -> Void) -> SendResult {
        guard zmq_msg_init_size(scratch, size) == 0 else { return .failed(.last("zmq_msg_init_size")) }
        fill(UnsafeMutableRawBufferPointer(start: zmq_msg_data(scratch), count: size))
        if zmq_msg_send(scratch, handle, ZMQ_DONTWAIT) >= 0 { return .sent }
        let result = Self.result(ofFailed: "zmq_msg_send")
        zmq_msg_close(scratch)
        return result
    }

    private static func result(ofFailed operation: String) -> SendResult {
        switch zmq_errno() {
        case EAGAIN: .wouldBlock
        case EHOSTUNREACH: .unroutable
        case let number: .failed(ZMQError(number: number, operation: operation))
        }
    }
}
