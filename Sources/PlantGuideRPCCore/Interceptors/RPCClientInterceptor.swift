import Foundation

/// Something every call of a client passes through before its transport sends it and after the answer comes
/// back: tracing, deadlines, the metadata a caller adds to every call.
///
/// Interceptors run in the order they are given: the first sees the call first and its answer last. Each calls
/// `next` once to go on (retries happen below them, inside one call), or throws to fail the call.
public protocol RPCClientInterceptor: Sendable {
    func intercept(_ call: RPCClientCall, next: RPCClientCall.Next) async throws -> RPCReply<Data>

    /// Whether it has anything to do in this process, asked once when a client is made: an inactive one (tracing
    /// with no tracer bootstrapped) costs its calls nothing.
    var isActive: Bool { get }
}

extension RPCClientInterceptor {
    public var isActive: Bool { true }
}

/// A call as client interceptors see it: the method's path, the serialized request and the call's options.
public struct RPCClientCall: Sendable {
    public typealias Next = @Sendable (RPCClientCall) async throws -> RPCReply<Data>

    /// "/package.Service/Method".
    public var path: String
    public var payload: Data
    /// Whether the method may be retried when it fails with UNAVAILABLE.
    public var isIdempotent: Bool
    /// The deadline (relative) and metadata an interceptor may change.
    public var options: RPCCallOptions

    public init(path: String, payload: Data, isIdempotent: Bool, options: RPCCallOptions) {
        self.path = path
        self.payload = payload
        self.isIdempotent = isIdempotent
        self.options = options
    }
}

extension Array where Element == any RPCClientInterceptor {
    /// `last` behind these interceptors, the first outermost.
    package func chained(to last: @escaping RPCClientCall.Next) -> RPCClientCall.Next {
        filter { $0.isActive }.reversed().reduce(last) { next, interceptor in
            { call in try await interceptor.intercept(call, next: next) }
        }
    }
}
