import CZeroMQ
import Foundation
import PlantGuideThreads
import Synchronization

/// A ZeroMQ SUB socket reading an event stream (reminders) that ``Publisher``s send: messages of two frames, topic
/// and payload, whose topic starts with the subscribed prefix. It runs on a thread of its own (receiving blocks),
/// connected to every publisher endpoint given, and hands each message to `deliver` there. ZeroMQ reconnects by
/// itself when a publisher restarts; messages published while it was away are lost, as PUB/SUB does. A DNS target
/// (the publishers of a scaled Compose service or a Kubernetes headless Service) is resolved again every
/// `refreshInterval` on the same thread, and publishers that appear or go are connected or dropped.
public final class Subscriber: Sendable {
    private final class StopFlag: Sendable {
        let value = Atomic<Bool>(false)
    }
    private let stopped = StopFlag()

    /// Connects to `target`'s endpoints (with `curve`, as that CurveZMQ client), subscribes to `topicPrefix`, and
    /// calls `deliver(topic, payload)` for every message, and `tick()` about every `tickInterval`, on the
    /// subscriber's thread until ``close()``.
    /// - Throws: ``RPCError`` with INVALID_ARGUMENT when an endpoint is malformed.
    public init(connectingTo target: RPCTarget, topicPrefix: String, curve: CurveClientSecurity? = nil,
                refreshInterval: Duration = .seconds(30), tickInterval: Duration = .milliseconds(250),
                tick: @escaping @Sendable () -> Void = {}, deliver: @escaping @Sendable (String, [UInt8]) -> Void) throws {
        let endpoints: Endpoints
        if case .endpoints(let list) = target {
            endpoints = Endpoints(fixed: list)
        } else {
            endpoints = Endpoints(target: target, refreshInterval: refreshInterval)
        }
        let socket: ZMQSocket
        do {
            socket = try ZMQSocket(type: ZMQ_SUB)
            if let curve { try socket.applyCurve(curve) }
            try socket.set(ZMQ_RCVHWM, 100_000)
            try socket.set(ZMQ_RCVTIMEO, Int32(tickInterval.milliseconds))
            // A publisher whose host is cut off sends no reset: heartbeats notice the dead connection within 3 s,
            // and connection attempts that get no answer are given up after a second, so that the stream resumes
            // about a second after the host is back rather than when the kernel's SYN back-off next tries.
            try socket.set(ZMQ_HEARTBEAT_IVL, 1_000)
            try socket.set(ZMQ_HEARTBEAT_TIMEOUT, 3_000)
            try socket.set(ZMQ_CONNECT_TIMEOUT, 1_000)
            try socket.set(ZMQ_RECONNECT_IVL_MAX, 1_000)
            try endpoints.connect(socket)
            try Array(topicPrefix.utf8).withUnsafeBytes { prefix in
                guard zmq_setsockopt(socket.handle, ZMQ_SUBSCRIBE, prefix.baseAddress, prefix.count) == 0 else {
                    throw ZMQError.last("zmq_setsockopt ZMQ_SUBSCRIBE")
                }
            }
        } catch {
            throw RPCError.invalidArgument("endpoint", .invalidFormat, "cannot subscribe to \(target): \(error)")
        }
        let box = ZMQSocketBox(socket: socket)
        let thread = Thread(named: "zmq-subscriber") { [stopped] in
            Self.receive(on: box.socket, until: stopped, tick: {
                endpoints.refreshIfDue(box.socket)
                tick()
            }, deliver: deliver)
            box.socket.close()
        }
        thread.start()
    }

    /// Stops receiving; the thread closes the socket within one tick.
    public func close() {
        stopped.value.store(true, ordering: .releasing)
    }

    private static func receive(on socket: ZMQSocket, until stopped: StopFlag, tick: () -> Void,
                                deliver: (String, [UInt8]) -> Void) {
        while !stopped.value.load(ordering: .acquiring) {
            // nil: the receive timed out (or a signal came), so it is time to look at the clock.
            guard let frames = socket.receiveFramesBlocking() else {
                tick()
                continue
            }
            if frames.count == 2 { deliver(String(decoding: frames[0], as: UTF8.self), frames[1]) }
        }
    }

    /// The publishers the socket is connected to, and for a DNS target when to look again. Used on the subscriber's
    /// thread only (after the first connection, made before it starts).
    private final class Endpoints: @unchecked Sendable {
        private let target: RPCTarget?
        private let refreshInterval: Duration
        private var connected: Set<String>
        private var nextRefresh = ContinuousClock.now

        init(fixed: [String]) {
            target = nil
            refreshInterval = .zero
            connected = Set(fixed)
        }

        init(target: RPCTarget, refreshInterval: Duration) {
            self.target = target
            self.refreshInterval = refreshInterval
            connected = []
        }

        /// The first connections: the fixed endpoints, or what the name resolves to now (nothing yet, when it
        /// does not resolve: the next refresh tries again).
        func connect(_ socket: ZMQSocket) throws {
            if target == nil {
                for endpoint in connected.sorted() { try socket.connect(endpoint) }
            } else {
                refreshIfDue(socket)
            }
        }

        /// Resolves a DNS target again when it is time: connects to new addresses, disconnects from gone ones.
        /// Blocks the subscriber's thread for the lookup, which only delays the reminders waiting in the socket.
        func refreshIfDue(_ socket: ZMQSocket) {
            guard case .dns(let host, let port) = target, ContinuousClock.now >= nextRefresh else { return }
            guard case .success(let found) = DNSResolver.endpoints(host: host, port: port) else {
                nextRefresh = .now + min(refreshInterval, .seconds(1))  // not there yet (a publisher starting): soon again
                return
            }
            nextRefresh = .now + refreshInterval
            let now = Set(found)
            for gone in connected.subtracting(now) { zmq_disconnect(socket.handle, gone) }
            for new in now.subtracting(connected) where (try? socket.connect(new)) != nil { connected.insert(new) }
            connected.formIntersection(now)
        }
    }
}
