import CZeroMQ
import Synchronization

/// A ZeroMQ PUB socket for event streams (reminders): each message is two frames, the topic and the payload, so
/// that subscribers filter by topic prefix (`zmq_setsockopt(ZMQ_SUBSCRIBE, topic)`). Publishing never
/// blocks: a subscriber that falls behind its high-water mark loses messages, as PUB/SUB does, so consumers that
/// must not miss one use webhooks or deduplicate against the outbox.
public final class Publisher: Sendable {
    private let socket: Mutex<ZMQSocketBox>
    /// The bound endpoint (with the real port when bound to port 0).
    public let endpoint: String

    /// Binds a PUB socket to `endpoint`; with `curve`, only its allowed clients may subscribe, encrypted.
    /// - Throws: ``RPCError`` with UNAVAILABLE when it cannot bind.
    public init(bind endpoint: String, highWaterMark: Int32 = 100_000, curve: CurveServerSecurity? = nil) throws {
        do {
            let socket = try ZMQSocket(type: ZMQ_PUB)
            try socket.set(ZMQ_SNDHWM, highWaterMark)
            if let curve { try socket.applyCurve(curve) }
            try socket.bind(endpoint)
            self.endpoint = socket.lastEndpoint
            self.socket = Mutex(ZMQSocketBox(socket: socket))
        } catch {
            throw RPCError(.unavailable, "cannot bind \(endpoint): \(error)")
        }
    }

    /// Publishes one message under `topic`. Access to the socket is serialised (libzmq sockets are not
    /// thread-safe; the lock also gives the memory barrier a socket needs to move between threads).
    public func publish(topic: String, payload: [UInt8]) {
        socket.withLock { box in
            _ = Array(topic.utf8).withUnsafeBytes { box.socket.send($0, more: true) }
            _ = payload.withUnsafeBytes { box.socket.send($0) }
        }
    }

    public func close() {
        socket.withLock { $0.socket.close() }
    }
}

/// Lets a socket live inside a Mutex.
struct ZMQSocketBox: @unchecked Sendable {
    let socket: ZMQSocket
}
