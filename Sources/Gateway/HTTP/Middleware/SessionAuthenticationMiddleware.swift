import Hummingbird

/// Finds the caller's credentials once, for every route after it: the Authorization header, or the session
/// cookie's token standing for a bearer token when the request sends no header (``GatewayRequestContext``). The
/// services check them; this layer only says which were given.
struct SessionAuthenticationMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let header = request.headers[.authorization] {
            context.authorization = header
        } else if let token = BrowserSession.token(in: request) {
            context.cookieToken = token
            context.authorization = "Bearer \(token)"
        }
        return try await next(request, context)
    }
}
