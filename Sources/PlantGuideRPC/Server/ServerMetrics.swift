import Prometheus
import Synchronization

/// The RPC layer's own metrics, kept in the server's Prometheus registry: calls handled by method and status
/// code, handling latency by method, malformed frames, and replies that could not be delivered.
final class ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let malformedFrames: Counter
    let droppedReplies: Counter
    private let handled = Mutex<[String: (counters: [Int: Counter], latency: DurationHistogram)]>([:])

    private static let latencyBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        malformedFrames = registry.makeCounter(
            name: "plantguide_rpc_server_malformed_frames_total", help: "Frames dropped because they were not an RpcRequest.")
        droppedReplies = registry.makeCounter(
            name: "plantguide_rpc_server_dropped_replies_total", help: "Replies not delivered (client gone or its queue full).")
    }

    /// Counts one answered call and its latency from arrival to reply.
    func record(method: String, code: RPCError.Code, since arrival: MonotonicTime) {
        let elapsed = MonotonicTime.now().nanoseconds &- arrival.nanoseconds
        let (counter, latency) = handled.withLock { table in
            if table[method] == nil {
                let histogram = registry.makeDurationHistogram(
                    name: "plantguide_rpc_server_handling_seconds", labels: [("method", method)],
                    buckets: Self.latencyBuckets, help: "Time from a request's arrival to its reply.")
                table[method] = ([:], histogram)
            }
            if let counter = table[method]!.counters[code.rawValue] {
                return (counter, table[method]!.latency)
            }
            let counter = registry.makeCounter(
                name: "plantguide_rpc_server_handled_total", labels: [("method", method), ("code", code.name)],
                help: "Calls answered, by method and status code.")
            table[method]!.counters[code.rawValue] = counter
            return (counter, table[method]!.latency)
        }
        counter.increment()
        latency.record(.nanoseconds(Int64(elapsed)))
    }
}
