import Foundation
import PlantGuideRPCCore

/// Makes the caller of each gateway method that needs one, once, before its handler: the bearer token of the
/// `authorization` metadata (and a household's collection named by `plantguide-collection-owner`) checked against
/// the method's scope, then kept as ``Caller/current`` while the handler runs. Methods anyone may call (sign-up,
/// sign-in) pass as they are.
struct CallerAuthenticationInterceptor: RPCServerInterceptor {
    let authenticator: CallerAuthenticator
    /// The scope of each method that needs a caller, by path.
    let scopes: [String: CollectionScope]

    func intercept(_ call: RPCServerCall, next: RPCServerCall.Next) async throws -> RPCServerResponse {
        guard let scope = scopes[call.context.method] else { return try await next(call) }
        let metadata = call.context.metadata
        let caller = try await authenticator.caller(
            authorization: metadata["authorization"], collectionOwner: metadata[CallerAuthenticator.collectionOwnerKey],
            scope: scope, deadline: call.context.deadline, traceID: call.context.traceID)
        return try await Caller.$current.withValue(caller) { try await next(call) }
    }
}
