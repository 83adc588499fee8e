import CZeroMQ
import Synchronization

/// Connection events of one socket, read from libzmq's monitor (a PAIR socket on an inproc endpoint).
/// Owned by the same thread as the socket it watches.
final class SocketMonitor {
    /// One connection event.
    struct Event {
        /// A `ZMQ_EVENT_*` value.
        let kind: Int32
        /// The endpoint the event is about.
        let address: String
    }

    let socket: ZMQSocket
    private let watched: ZMQSocket
    private static let counter = Atomic<UInt64>(0)

    init(watching watched: ZMQSocket, events: Int32) throws {
        self.watched = watched
        let (number, _) = Self.counter.add(1, ordering: .relaxed)
        let address = "inproc://plantguide-monitor-\(number)"
        guard zmq_socket_monitor(watched.handle, address, events) == 0 else {
            throw ZMQError.last("zmq_socket_monitor")
        }
        socket = try ZMQSocket(type: ZMQ_PAIR)
        try socket.connect(address)
    }

    /// The next waiting event, or nil.
    func nextEvent() -> Event? {
        var event: Int32?
        var address = ""
        // A monitor message is two frames: 6 bytes (event number, value) and the endpoint address.
        _ = try? socket.receive { frames, last in
            if let first = frames.first, first.count >= 2 {
                event = Int32(first[0]) | Int32(first[1]) << 8
                address = String(decoding: last, as: UTF8.self)
            }
        }
        return event.map { Event(kind: $0, address: address) }
    }

    func close() {
        zmq_socket_monitor(watched.handle, nil, 0)
        socket.close()
    }
}
