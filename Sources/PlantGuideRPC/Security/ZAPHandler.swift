import CZeroMQ
import Foundation
import PlantGuideThreads
import Synchronization

/// The process's ZAP handler (ZeroMQ RFC 27): libzmq asks it, over `inproc://zeromq.zap.01`, whether each client
/// completing a CURVE handshake may connect; it says yes only to the allowed public keys. One per process, bound
/// before any CURVE server socket, because without a handler libzmq would let every CURVE client in.
final class ZAPHandler: Sendable {
    private static let shared = Mutex<ZAPHandler?>(nil)
    private let allowed: Mutex<Set<String>>

    private init(allowed: Set<String>) {
        self.allowed = Mutex(allowed)
    }

    /// Binds the handler once per process (on first use) and adds `keys` to what it allows.
    /// - Throws: ``RPCError`` INTERNAL when the inproc endpoint cannot be bound.
    static func allow(_ keys: Set<String>) throws {
        try shared.withLock { handler in
            if let handler {
                handler.allowed.withLock { $0.formUnion(keys) }
                return
            }
            let made = ZAPHandler(allowed: keys)
            let socket = try ZMQSocket(type: ZMQ_REP)
            do {
                try socket.set(ZMQ_RCVTIMEO, 500)
                try socket.bind("inproc://zeromq.zap.01")
            } catch {
                throw RPCError(.internal, "cannot bind the ZAP handler: \(error)")
            }
            let box = ZMQSocketBox(socket: socket)
            Thread(named: "zap-handler") {
                made.serve(box.socket)
            }.start()
            handler = made
        }
    }

    /// Answers requests for the life of the process.
    private func serve(_ socket: ZMQSocket) {
        while true {
            guard let request = socket.receiveFramesBlocking() else { continue }
            // version, request id, domain, address, identity, mechanism, credentials...
            guard request.count >= 6 else { continue }
            var allowedKey = false
            var clientKey = ""
            if String(decoding: request[5], as: UTF8.self) == "CURVE", request.count >= 7, request[6].count == 32 {
                var encoded = [CChar](repeating: 0, count: 41)
                _ = request[6].withUnsafeBufferPointer { zmq_z85_encode(&encoded, $0.baseAddress, 32) }
                clientKey = String(cString: encoded)
                allowedKey = allowed.withLock { $0.contains(clientKey) }
            }
            let reply: [[UInt8]] = [
                Array("1.0".utf8), request[1], Array((allowedKey ? "200" : "400").utf8),
                Array((allowedKey ? "OK" : "client key not allowed").utf8), Array(clientKey.utf8), [],
            ]
            for (index, frame) in reply.enumerated() {
                _ = frame.withUnsafeBytes { socket.sendBlocking($0, more: index < reply.count - 1) }
            }
        }
    }
}

extension ZMQSocket {
    /// Receives one whole multipart message, waiting up to the socket's ZMQ_RCVTIMEO; nil when none came in that
    /// time (or a signal interrupted the wait). For the sockets that own a thread: the ZAP handler, a subscriber.
    func receiveFramesBlocking() -> [[UInt8]]? {
        var frames: [[UInt8]] = []
        var message = zmq_msg_t()
        while true {
            zmq_msg_init(&message)
            defer { zmq_msg_close(&message) }
            guard zmq_msg_recv(&message, handle, 0) >= 0 else { return nil }
            frames.append(Array(UnsafeRawBufferPointer(start: zmq_msg_data(&message), count: zmq_msg_size(&message))))
            if zmq_msg_more(&message) == 0 { return frames }
        }
    }

    /// Sends one frame, waiting if need be (only for the ZAP handler's inproc replies).
    func sendBlocking(_ bytes: UnsafeRawBufferPointer, more: Bool) -> Bool {
        zmq_send(handle, bytes.baseAddress, bytes.count, more ? ZMQ_SNDMORE : 0) >= 0
    }

    /// Makes this socket a CURVE server with `security`'s key pair, its clients checked by the ZAP handler.
    func applyCurve(_ security: CurveServerSecurity) throws {
        try ZAPHandler.allow(security.allowedClientKeys)
        try set(ZMQ_CURVE_SERVER, 1)
        try set(string: ZMQ_CURVE_SECRETKEY, security.keyPair.secretKey)
        try set(string: ZMQ_ZAP_DOMAIN, "plantguide")
    }

    /// Makes this socket a CURVE client of the server whose public key `security` names.
    func applyCurve(_ security: CurveClientSecurity) throws {
        try set(string: ZMQ_CURVE_SERVERKEY, security.serverPublicKey)
        try set(string: ZMQ_CURVE_PUBLICKEY, security.keyPair.publicKey)
        try set(string: ZMQ_CURVE_SECRETKEY, security.keyPair.secretKey)
    }

    func set(string option: Int32, _ value: String) throws {
        let bytes = Array(value.utf8)
        guard zmq_setsockopt(handle, option, bytes, bytes.count) == 0 else { throw ZMQError.last("zmq_setsockopt \(option)") }
    }
}
