import CZeroMQ
import Foundation
import PlantGuideTestSupport

/// A bare DEALER socket for tests that must put exact bytes on the wire (junk, truncated envelopes, requests
/// whose deadline only the server can enforce).
final class RawDealer {
    private let socket: UnsafeMutableRawPointer
    nonisolated(unsafe) private static let context = zmq_ctx_new()!

    init(connectingTo endpoint: String, type: Int32 = ZMQ_DEALER) throws {
        socket = zmq_socket(Self.context, type)
        var linger: Int32 = 0
        zmq_setsockopt(socket, ZMQ_LINGER, &linger, 4)
        guard zmq_connect(socket, endpoint) == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { zmq_close(socket) }

    /// Sends one frame (a REQ socket adds its empty delimiter itself).
    func send(_ bytes: [UInt8]) throws {
        guard zmq_send(socket, bytes, bytes.count, 0) >= 0 else { throw POSIXError(.EIO) }
    }

    /// The body frame of the next message, or nil after `timeoutMs`. Blocks a thread of its own, never one of
    /// Swift's cooperative threads, which the in-process server's handlers need.
    func receive(timeoutMs: Int) async -> [UInt8]? {
        let socket = SocketBox(self)
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: socket.dealer.blockingReceive(timeoutMs: timeoutMs)) }.start()
        }
    }

    private func blockingReceive(timeoutMs: Int) -> [UInt8]? {
        guard zmqWaitReadable(socket, timeoutMs: timeoutMs) else { return nil }
        var body: [UInt8] = []
        var message = zmq_msg_t()
        repeat {
            zmq_msg_init(&message)
            guard zmq_msg_recv(&message, socket, 0) >= 0 else { return nil }
            body = Array(UnsafeRawBufferPointer(start: zmq_msg_data(&message), count: zmq_msg_size(&message)))
            let more = zmq_msg_more(&message) != 0
            zmq_msg_close(&message)
            if !more { break }
        } while true
        return body
    }
}

private struct SocketBox: @unchecked Sendable {
    let dealer: RawDealer
    init(_ dealer: RawDealer) { self.dealer = dealer }
}
