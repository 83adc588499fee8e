import CZeroMQ
import Foundation
import PlantGuideProtos

/// Sends `Health/Check` to a service at a steady pace from a thread of its own, over a bare DEALER socket, and
/// records how long each answer took. Its measurements depend only on the service, not on how busy this test
/// process's cooperative pool is.
public final class HealthProber: @unchecked Sendable {
    /// What the probes saw.
    public struct Report: Sendable {
        /// Round-trip times of the answered probes, in milliseconds, sorted.
        public var latencies: [Double]
        /// Probes with no answer within the probe time-out.
        public var unanswered: Int
        /// Answers that were not SERVING.
        public var notServing: Int

        /// The latency at `percentile` (0-100) of the answered probes.
        public func latency(atPercentile percentile: Double) -> Double {
            guard !latencies.isEmpty else { return .infinity }
            let rank = Int((percentile / 100 * Double(latencies.count)).rounded(.up)) - 1
            return latencies[min(max(rank, 0), latencies.count - 1)]
        }
    }

    nonisolated(unsafe) private static let context = zmq_ctx_new()!
    private let endpoint: String
    private let interval: Duration
    private let stopped = NSCondition()
    private var stopRequested = false

    public init(endpoint: String, interval: Duration = .milliseconds(20)) {
        self.endpoint = endpoint
        self.interval = interval
    }

    /// Probes until `stop()`, then returns what it saw.
    public func run() async -> Report {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.probe()) }.start()
        }
    }

    public func stop() {
        stopped.withLock {
            stopRequested = true
            stopped.broadcast()
        }
    }

    private func probe() -> Report {
        let socket = zmq_socket(Self.context, ZMQ_DEALER)
        var linger: Int32 = 0
        zmq_setsockopt(socket, ZMQ_LINGER, &linger, 4)
        zmq_connect(socket, endpoint)
        defer { zmq_close(socket) }
        var report = Report(latencies: [], unanswered: 0, notServing: 0)
        var id: UInt64 = 0
        while !stopped.withLock({ stopRequested }) {
            id += 1
            var request = Plantguide_Rpc_V1_RpcRequest()
            request.id = id
            request.method = Plantguide_Health_V1_Health.check.path
            request.timeoutMs = 2_000
            let bytes = (try? request.serializedBytes()) ?? [UInt8]()
            let sent = ContinuousClock.now
            _ = bytes.withUnsafeBytes { zmq_send(socket, $0.baseAddress, $0.count, 0) }
            if let reply = receive(socket, id: id, until: sent + .seconds(2)) {
                let elapsed = (ContinuousClock.now - sent).components
                report.latencies.append(Double(elapsed.seconds) * 1_000 + Double(elapsed.attoseconds) / 1e15)
                let health = try? Plantguide_Health_V1_HealthCheckResponse(serializedBytes: reply.payload)
                if reply.status.code != .ok || health?.status != .serving { report.notServing += 1 }
            } else {
                report.unanswered += 1
            }
            let pause = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
            stopped.withLock { _ = stopped.wait(until: Date(timeIntervalSinceNow: pause)) }
        }
        report.latencies.sort()
        return report
    }

    /// The reply to probe `id`, skipping late replies to earlier probes; nil at `deadline`.
    private func receive(_ socket: UnsafeMutableRawPointer?, id: UInt64, until deadline: ContinuousClock.Instant)
        -> Plantguide_Rpc_V1_RpcResponse?
    {
        while ContinuousClock.now < deadline {
            let left = (deadline - ContinuousClock.now).components
            guard zmqWaitReadable(socket, timeoutMs: Int(left.seconds * 1_000 + left.attoseconds / 1_000_000_000_000_000) + 1) else { return nil }
            var message = zmq_msg_t()
            zmq_msg_init(&message)
            defer { zmq_msg_close(&message) }
            guard zmq_msg_recv(&message, socket, 0) >= 0 else { return nil }
            let frame = Array(UnsafeRawBufferPointer(start: zmq_msg_data(&message), count: zmq_msg_size(&message)))
            if let response = try? Plantguide_Rpc_V1_RpcResponse(serializedBytes: frame), response.id == id {
                return response
            }
        }
        return nil
    }
}
