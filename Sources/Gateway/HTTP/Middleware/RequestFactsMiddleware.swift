import Hummingbird

/// Makes what the front knows of the request beyond its message (the client's address, behind trusted proxies,
/// and the authority it was sent to) the ``HTTPRequestFacts`` of everything that serves it: sign-ins count failures
/// against that address, passkey ceremonies run on that site. A task-local, so no RPC caller can claim it.
struct RequestFactsMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    let clientAddresses: ClientAddresses

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let facts = HTTPRequestFacts(
            clientAddress: clientAddresses.client(peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: Self.forwardedFor]),
            authority: request.head.authority?.lowercased())
        return try await HTTPRequestFacts.$current.withValue(facts) { try await next(request, context) }
    }

    private static let forwardedFor = HTTPFields.Element.Name("X-Forwarded-For")!
}
