import Foundation
import PlantGuideProtos
import PlantGuideRPCCore

/// The gateway's methods, each once, as typed functions of a request and its caller. The RPC front serves them
/// (the message decoded, the caller read from the call's metadata), and the web app calls them in process with the
/// session's token: no message serialized to ourselves, no Authorization header made up.
struct GatewayMethods: Sendable {
    private struct Entry: Sendable {
        /// What the caller may do with a collection; nil for a method that needs no token (sign-up, sign-in).
        let scope: CollectionScope?
        let body: @Sendable (any Sendable, Caller?) async throws -> any Sendable
        let register: @Sendable (inout RPCRouter) -> Void
    }

    let authenticator: CallerAuthenticator
    private var entries: [String: Entry] = [:]

    init(authenticator: CallerAuthenticator) {
        self.authenticator = authenticator
    }

    /// A method anyone may call: how a person gets a token.
    mutating func anyone<Request, Response>(_ method: RPCMethod<Request, Response>, _ body: @escaping @Sendable (Request) async throws -> Response) {
        add(method, scope: nil) { request, _ in try await body(request) }
    }

    /// A method the caller's token (or a household's share, as `scope` allows) authorizes.
    mutating func authenticated<Request, Response>(
        _ method: RPCMethod<Request, Response>, _ scope: CollectionScope, _ body: @escaping @Sendable (Request, Caller) async throws -> Response
    ) {
        add(method, scope: scope) { request, caller in
            guard let caller else { throw RPCError(.unauthenticated, "sign in first") }
            return try await body(request, caller)
        }
    }

    private mutating func add<Request, Response>(
        _ method: RPCMethod<Request, Response>, scope: CollectionScope?, _ body: @escaping @Sendable (Request, Caller?) async throws -> Response
    ) {
        entries[method.path] = Entry(
            scope: scope,
            body: { request, caller in
                guard let request = request as? Request else { throw RPCError(.internal, "\(method.path) was called with another message") }
                return try await body(request, caller)
            },
            // The caller was made by the authentication interceptor (``interceptor``).
            register: { router in router.register(method) { request, _ in try await body(request, Caller.current) } })
    }

    /// Registers every method with the RPC router.
    func register(with router: inout RPCRouter) {
        for entry in entries.values { entry.register(&router) }
    }

    /// What makes each method's caller from the call's metadata, for the RPC and HTTP fronts.
    var interceptor: CallerAuthenticationInterceptor {
        CallerAuthenticationInterceptor(authenticator: authenticator, scopes: entries.compactMapValues(\.scope))
    }

    /// Calls `method` in process as the owner of `token` (none: only a method anyone may call succeeds).
    /// - Throws: the method's ``RPCError``; UNIMPLEMENTED for a method the gateway does not have.
    func call<Request, Response>(_ method: RPCMethod<Request, Response>, _ request: Request, token: String?,
                                 deadline: ContinuousClock.Instant) async throws -> Response {
        guard let entry = entries[method.path] else { throw RPCError(.unimplemented, "the gateway has no method \(method.path)") }
        var caller: Caller?
        if let scope = entry.scope {
            guard let token else { throw RPCError(.unauthenticated, "sign in first") }
            caller = try await authenticator.caller(token: token, collectionOwner: nil, scope: scope, deadline: deadline, traceID: nil)
        }
        guard let response = try await entry.body(request, caller) as? Response else {
            throw RPCError(.internal, "\(method.path) answered with another type")
        }
        return response
    }
}
