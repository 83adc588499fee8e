import Hummingbird
import NIOCore

/// What the HTTP front knows of a request beyond its bytes: Hummingbird's basics, the connection's remote address
/// (for ``ClientAddresses``), what ``SessionAuthenticationMiddleware`` found of the caller, and the exchange the
/// tracing and access-log middleware name after the route.
struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    /// The caller's credentials as the services take them: the Authorization header, or "Bearer" and the session
    /// cookie's token when the request sends no header. Nil for an anonymous request.
    var authorization: String?
    /// The session cookie's token when it stands for the caller (no Authorization header was sent): such a request
    /// must come from the gateway's own pages when it changes something (``CrossSiteRequestMiddleware``).
    var cookieToken: String?
    /// The request's route and span, shared by every layer that serves it.
    let exchange: HTTPExchange

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        exchange = HTTPExchange()
    }
}
