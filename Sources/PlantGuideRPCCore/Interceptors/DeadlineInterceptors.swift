import Foundation

/// The deadline of the call a task is serving, so that the calls it makes downstream end when its caller stops
/// waiting (gRPC's deadline propagation): ``ServerDeadlineInterceptor`` sets it for each handler,
/// ``ClientDeadlineInterceptor`` gives it to each call made without a timeout of its own.
public enum RPCDeadline {
    @TaskLocal public static var current: ContinuousClock.Instant?
}

/// Makes each call's deadline ``RPCDeadline/current`` while its handler runs.
public struct ServerDeadlineInterceptor: RPCServerInterceptor {
    public init() {}

    public func intercept(_ call: RPCServerCall, next: RPCServerCall.Next) async throws -> RPCServerResponse {
        try await RPCDeadline.$current.withValue(call.context.deadline) { try await next(call) }
    }
}

/// Gives a call made without a timeout what is left of ``RPCDeadline/current``; fails it at once with
/// DEADLINE_EXCEEDED when nothing is left (the caller has stopped waiting). A call with a timeout of its own keeps
/// the shorter of the two.
public struct ClientDeadlineInterceptor: RPCClientInterceptor {
    public init() {}

    public func intercept(_ call: RPCClientCall, next: RPCClientCall.Next) async throws -> RPCReply<Data> {
        guard let deadline = RPCDeadline.current else { return try await next(call) }
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else {
            throw RPCError(.deadlineExceeded, "the deadline of the call being served passed before \(call.path) was sent")
        }
        var call = call
        call.options.timeout = min(call.options.timeout ?? left, left)
        return try await next(call)
    }
}
