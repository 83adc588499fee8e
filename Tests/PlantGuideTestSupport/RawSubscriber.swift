import CZeroMQ
import Foundation

/// A bare SUB socket for tests of PUB streams. Receives block a thread of their own, never a cooperative one.
public final class RawSubscriber: @unchecked Sendable {
    private let socket: UnsafeMutableRawPointer
    nonisolated(unsafe) private static let context = zmq_ctx_new()!

    public init(connectingTo endpoint: String, topic: String) {
        socket = zmq_socket(Self.context, ZMQ_SUB)
        var linger: Int32 = 0
        zmq_setsockopt(socket, ZMQ_LINGER, &linger, 4)
        zmq_setsockopt(socket, ZMQ_SUBSCRIBE, topic, topic.utf8.count)
        zmq_connect(socket, endpoint)
    }

    deinit { zmq_close(socket) }

    /// The next (topic, payload), or nil after `timeoutMs`.
    public func receive(timeoutMs: Int) async -> (topic: String, payload: [UInt8])? {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.blockingReceive(timeoutMs: timeoutMs)) }.start()
        }
    }

    private func blockingReceive(timeoutMs: Int) -> (String, [UInt8])? {
        guard zmqWaitReadable(socket, timeoutMs: timeoutMs) else { return nil }
        var frames: [[UInt8]] = []
        var message = zmq_msg_t()
        repeat {
            zmq_msg_init(&message)
            guard zmq_msg_recv(&message, socket, 0) >= 0 else { return nil }
            frames.append(Array(UnsafeRawBufferPointer(start: zmq_msg_data(&message), count: zmq_msg_size(&message))))
            let more = zmq_msg_more(&message) != 0
            zmq_msg_close(&message)
            if !more { break }
        } while true
        guard frames.count == 2 else { return nil }
        return (String(decoding: frames[0], as: UTF8.self), frames[1])
    }
}
