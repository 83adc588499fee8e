import Foundation
import PlantGuideRPCCore

/// Gives each call the gateway makes to a service the caller it is made for (``Caller/current``): the user's id
/// (the owner of the collection acted on), the trace id, and what is left of the caller's deadline. A call made for
/// no caller goes as it is, and the service refuses what needs a user.
public struct CallerMetadataInterceptor: RPCClientInterceptor {
    public init() {}

    public func intercept(_ call: RPCClientCall, next: RPCClientCall.Next) async throws -> RPCReply<Data> {
        guard let caller = Caller.current else { return try await next(call) }
        var call = call
        call.options.metadata[RPCServerContext.userIDKey] = caller.id
        if let trace = caller.traceID { call.options.metadata[RPCServerContext.traceIDKey] = trace }
        call.options.timeout = max(.milliseconds(1), ContinuousClock.now.duration(to: caller.deadline))
        return try await next(call)
    }
}
