import Prometheus

/// The RPC layer's own metrics, kept in the server's Prometheus registry: calls handled by method and status
/// code, handling latency by method (requests, errors and duration: RED), the calls running and waiting as
/// admission control sees them, malformed frames, and replies that could not be delivered.
///
/// `record` is called by the server loop's thread only, so its per-method cache needs no lock.
final class ServerMetrics: @unchecked Sendable {
    let registry: PrometheusCollectorRegistry
    let malformedFrames: Counter
    let droppedReplies: Counter
    private let running: Gauge
    private let queued: Gauge
    private var published = (running: -1, queued: -1)
    private var methods: [String: Method] = [:]

    /// The counters of one method, made on first use. The server loop keeps each known method's in its
    /// ``MethodTable`` entry, so that a call costs no lookup by name.
    final class Method {
        fileprivate let name: String
        fileprivate var handled = [Counter?](repeating: nil, count: 17)
        fileprivate let latency: DurationHistogram

        fileprivate init(name: String, latency: DurationHistogram) {
            self.name = name
            self.latency = latency
        }
    }

    private static let latencyBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        malformedFrames = registry.makeCounter(descriptor: Self.descriptor(
            "malformed_frames", unit: "total", help: "Frames dropped because they were not an RpcRequest."))
        droppedReplies = registry.makeCounter(descriptor: Self.descriptor(
            "dropped_replies", unit: "total", help: "Replies not delivered (client gone or its queue full)."))
        running = registry.makeGauge(descriptor: Self.descriptor(
            "running", unit: "calls", help: "Calls whose handler runs now (at most the server's concurrency limit)."))
        queued = registry.makeGauge(descriptor: Self.descriptor(
            "queued", unit: "calls", help: "Calls waiting for a handler slot (at most the server's queue limit)."))
        admission(running: 0, queued: 0)
    }

    /// Publishes what admission control holds, when it changed. I/O thread only.
    func admission(running: Int, queued: Int) {
        if running != published.running { self.running.set(Int64(running)) }
        if queued != published.queued { self.queued.set(Int64(queued)) }
        published = (running, queued)
    }

    /// "plantguide_rpc_server_<name>_<unit>".
    private static func descriptor(_ name: String, unit: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "plantguide", subsystem: "rpc_server", metricName: name, unitName: unit, helpText: help)
    }

    /// The counters of the method named `name`, made on first use. I/O thread only.
    func method(named name: String) -> Method {
        if let known = methods[name] { return known }
        let made = Method(name: name, latency: registry.makeDurationHistogram(
            descriptor: Self.descriptor("handling", unit: "seconds", help: "Time from a request's arrival to its reply."),
            labels: [("method", name)], buckets: Self.latencyBuckets))
        methods[name] = made
        return made
    }

    /// Counts one answered call of the method named `method` and its latency from arrival to reply. I/O thread
    /// only.
    func record(method: String, code: RPCError.Code, since arrival: MonotonicTime) {
        record(self.method(named: method), code: code, since: arrival)
    }

    /// Counts one answered call of `method` and its latency from arrival to reply. I/O thread only.
    func record(_ method: Method, code: RPCError.Code, since arrival: MonotonicTime) {
        let counter: Counter
        if let known = method.handled[code.rawValue] {
            counter = known
        } else {
            counter = registry.makeCounter(
                descriptor: Self.descriptor("handled", unit: "total", help: "Calls answered, by method and status code."),
                labels: [("method", method.name), ("code", code.name)])
            method.handled[code.rawValue] = counter
        }
        counter.increment()
        method.latency.record(MonotonicTime.now().duration(since: arrival))
    }
}
