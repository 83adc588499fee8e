import CZeroMQ

/// One server address of a client's target: a DEALER socket connected to it, its monitor, and its state as in
/// gRPC's connectivity states. Owned by the client loop's thread.
final class ClientEndpoint {
    enum State: Equatable {
        /// Not connected yet, first attempt under way.
        case connecting
        /// Handshake done: calls may go here.
        case ready
        /// Lost or refused; libzmq keeps reconnecting with back-off.
        case transientFailure
    }

    let address: String
    let socket: ZMQSocket
    let monitor: SocketMonitor
    var state = State.connecting
    /// Calls sent here and not answered yet.
    var outstanding = 0
    /// Why the endpoint last failed, for error messages.
    var lastProblem = "not connected yet"

    init(address: String, configuration: RPCClientConfiguration) throws {
        self.address = address
        socket = try ZMQSocket(type: ZMQ_DEALER)
        try socket.set(ZMQ_IMMEDIATE, 1)
        try socket.set(ZMQ_IPV6, 1)
        try socket.set(ZMQ_MAXMSGSIZE, int64: Int64(configuration.maxMessageSize) + 4_096)
        try socket.set(ZMQ_SNDHWM, configuration.highWaterMark)
        try socket.set(ZMQ_RCVHWM, configuration.highWaterMark)
        try socket.set(ZMQ_RECONNECT_IVL, Int32(configuration.reconnectInterval.milliseconds))
        try socket.set(ZMQ_RECONNECT_IVL_MAX, Int32(configuration.maxReconnectInterval.milliseconds))
        let heartbeat = Int32(configuration.heartbeatInterval.milliseconds)
        try socket.set(ZMQ_HEARTBEAT_IVL, heartbeat)
        try socket.set(ZMQ_HEARTBEAT_TIMEOUT, heartbeat * 3)
        try socket.set(ZMQ_HEARTBEAT_TTL, heartbeat * 3)
        if let connectTimeout = configuration.connectTimeout {
            try socket.set(ZMQ_CONNECT_TIMEOUT, Int32(connectTimeout.milliseconds))
        }
        if let curve = configuration.curve { try socket.applyCurve(curve) }
        monitor = try SocketMonitor(
            watching: socket,
            events: ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_CONNECT_RETRIED
                | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
        try socket.connect(address)
    }

    /// Applies the monitor's waiting events; returns true when the endpoint went from ready to lost.
    func applyMonitorEvents() -> (becameReady: Bool, lost: Bool) {
        var becameReady = false
        var lost = false
        while let event = monitor.nextEvent() {
            switch event.kind {
            case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
                becameReady = state != .ready
                state = .ready
            case ZMQ_EVENT_DISCONNECTED:
                lost = lost || state == .ready
                state = .transientFailure
                lastProblem = "connection to \(address) lost"
            case ZMQ_EVENT_CONNECT_RETRIED:
                if state != .ready { state = .transientFailure }
                lastProblem = "cannot connect to \(address)"
            default:
                state = .transientFailure
                lastProblem = "handshake with \(address) failed"
            }
        }
        return (becameReady, lost)
    }

    func close() {
        monitor.close()
        socket.close()
    }
}
