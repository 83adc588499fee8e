import Foundation

/// Something every call of a server passes through on its way to the handler and back, whatever the transport
/// (ZeroMQ, in process, or the gateway's HTTP front over the same router): tracing, deadlines, authentication.
///
/// Interceptors run in the order they are given: the first sees the call first and its answer last. Each calls
/// `next` once to go on, or throws to refuse the call. What one throws (or lets through) becomes the call's status.
///
/// ```swift
/// struct RefuseWithoutUser: RPCServerInterceptor {
///     func intercept(_ call: RPCServerCall, next: RPCServerCall.Next) async throws -> RPCServerResponse {
///         _ = try call.context.requireUserID()
///         return try await next(call)
///     }
/// }
/// ```
public protocol RPCServerInterceptor: Sendable {
    /// - Returns: the response `next` gave (or one of the interceptor's own). An interceptor that has trailing
    ///   metadata for a failed call sets it on the ``RPCError`` it throws.
    func intercept(_ call: RPCServerCall, next: RPCServerCall.Next) async throws -> RPCServerResponse

    /// Whether it has anything to do in this process, asked once when a server's router is made: an inactive one
    /// (tracing with no tracer bootstrapped) costs its calls nothing.
    var isActive: Bool { get }
}

extension RPCServerInterceptor {
    public var isActive: Bool { true }
}

/// A call as server interceptors see it: the request's serialized payload and what the handler will know of it.
public struct RPCServerCall: Sendable {
    public typealias Next = @Sendable (RPCServerCall) async throws -> RPCServerResponse

    public var payload: Data
    public var context: RPCServerContext

    public init(payload: Data, context: RPCServerContext) {
        self.payload = payload
        self.context = context
    }
}

/// What a handler answered: the serialized response and the trailing metadata interceptors added.
public struct RPCServerResponse: Sendable {
    public var payload: Data
    /// Keys lower-case, as metadata keys are (a traced call's `traceresponse`).
    public var trailingMetadata: [String: String]

    public init(payload: Data, trailingMetadata: [String: String] = [:]) {
        self.payload = payload
        self.trailingMetadata = trailingMetadata
    }
}

extension RPCRouter {
    /// This router with every method's handler behind `interceptors` (the first outermost). Probes (health,
    /// metrics) stay as they are: they answer ahead of everything, on the I/O thread.
    public func intercepted(by interceptors: [any RPCServerInterceptor]) -> RPCRouter {
        let active = interceptors.filter { $0.isActive }
        guard !active.isEmpty else { return self }
        var router = self
        router.wrapHandlers { handler in
            active.reversed().reduce(handler) { next, interceptor in
                { payload, context in
                    try await interceptor.intercept(RPCServerCall(payload: payload, context: context)) { call in
                        try await next(call.payload, call.context)
                    }
                }
            }
        }
        return router
    }
}
