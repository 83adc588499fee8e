/// How an ``RPCServer`` binds and how much it takes on. Defaults suit a service on one machine.
public struct RPCServerConfiguration: Sendable {
    /// ZeroMQ endpoint to bind, e.g. "tcp://127.0.0.1:7003", "tcp://*:7003", or port 0 for an ephemeral port.
    public var bindEndpoint: String
    /// Largest request accepted, in bytes; larger ones get RESOURCE_EXHAUSTED. Default 16 MiB (a phone photo).
    public var maxMessageSize: Int = 16 << 20
    /// Requests larger than this are refused by libzmq itself, which drops the connection (a memory guard);
    /// between `maxMessageSize` and this the caller gets a proper RESOURCE_EXHAUSTED. Default: twice
    /// `maxMessageSize`, at least 128 MiB.
    public var transportMessageSizeLimit: Int?
    /// Handlers running at once; more calls wait in a queue. Default 256.
    public var maxConcurrentCalls: Int = 256
    /// Calls waiting for a handler slot; beyond that calls get RESOURCE_EXHAUSTED at once. Default 4,096.
    public var maxQueuedCalls: Int = 4_096
    /// Request bytes waiting for a handler slot, all calls together; beyond that calls get RESOURCE_EXHAUSTED at
    /// once, so that a queue of large requests (photos) cannot grow memory without bound. Default 256 MiB.
    public var maxQueuedBytes: Int = 256 << 20
    /// Deadline applied to requests that carry none (timeout 0). Default 30 s.
    public var defaultTimeout: Duration = .seconds(30)
    /// Send and receive high-water marks, in messages per peer. Default 10,000.
    public var highWaterMark: Int32 = 10_000
    /// Where handlers run. Default: Swift's global pool.
    public var handlerExecution: HandlerExecution = .globalPool
    /// ZMTP heartbeat interval, so that a dead peer is noticed. Default 2 s; the timeout is three intervals.
    public var heartbeatInterval: Duration = .seconds(2)
    /// What every call passes through on its way to its handler, the first outermost (``RPCServerInterceptor``).
    /// Default: tracing, then the deadline its handler's own calls inherit.
    public var interceptors: [any RPCServerInterceptor] = [ServerTracingInterceptor(), ServerDeadlineInterceptor()]
    /// CurveZMQ: encryption, and only the allowed client keys may connect. Default nil: plain TCP, anyone.
    public var curve: CurveServerSecurity?

    /// - Parameter bindEndpoint: where to listen.
    public init(bindEndpoint: String) {
        self.bindEndpoint = bindEndpoint
    }

    /// Where an ``RPCServer`` runs its handlers (``RPCHandlerExecution``).
    public typealias HandlerExecution = RPCHandlerExecution

    var effectiveTransportLimit: Int {
        transportMessageSizeLimit ?? max(maxMessageSize.multipliedReportingOverflow(by: 2).partialValue, 128 << 20)
    }
}
