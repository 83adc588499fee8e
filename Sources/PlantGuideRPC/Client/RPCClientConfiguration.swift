/// How an ``RPCClient`` connects, waits and retries. Defaults suit calls between services on one network.
public struct RPCClientConfiguration: Sendable {
    /// Deadline of calls that set none. Default 10 s.
    public var defaultTimeout: Duration = .seconds(10)
    /// Largest request sent and reply accepted, in bytes. Default 16 MiB.
    public var maxMessageSize: Int = 16 << 20
    /// Attempts per call, the first included, for calls that may be retried. Default 4.
    public var maxAttempts: Int = 4
    /// First retry back-off; it doubles each retry up to `maxBackoff`, with full jitter. Default 50 ms.
    public var initialBackoff: Duration = .milliseconds(50)
    /// Default 1 s.
    public var maxBackoff: Duration = .seconds(1)
    /// Whether a call that finds no endpoint ready (every connection lost or refused, none about to come up) is
    /// retried like any UNAVAILABLE, in case one comes back during the back-off. False fails it at once, for a
    /// caller such as the gateway that would rather answer "unavailable" quickly than wait. Default true.
    public var retriesWhileUnreachable = true
    /// How often a DNS target is resolved again. Default 30 s.
    public var dnsRefreshInterval: Duration = .seconds(30)
    /// libzmq's reconnect interval after a connection is lost; it doubles up to `maxReconnectInterval`.
    public var reconnectInterval: Duration = .milliseconds(100)
    /// Default 2 s.
    public var maxReconnectInterval: Duration = .seconds(2)
    /// ZMTP heartbeat interval, so that a dead server is noticed even without a TCP reset (a host cut off drops
    /// packets silently): the connection counts as lost after three intervals without an answer. Default 2 s.
    public var heartbeatInterval: Duration = .seconds(2)
    /// How long one TCP connection attempt may wait for the server's answer before libzmq gives up and tries
    /// again; nil leaves it to the kernel, whose SYN retries back off to minutes, so that a host back from a network
    /// cut may be found only long after. Default nil.
    public var connectTimeout: Duration?
    /// Send and receive high-water marks, in messages per endpoint. Default 10,000.
    public var highWaterMark: Int32 = 10_000
    /// CurveZMQ towards servers that require it. Default nil: plain TCP.
    public var curve: CurveClientSecurity?

    public init() {}
}
