import Hummingbird

/// Refuses a change made with the session cookie that did not come from the gateway's own pages (its `Origin`,
/// or `Sec-Fetch-Site: same-origin`): another site's page can make a browser send the cookie, never that origin.
/// For the JSON API only requests that the cookie authenticates are checked (another site cannot send a bearer
/// token), and the refusal is a 403 `google.rpc.Status` (CROSS_SITE_REQUEST). The web app checks every form post,
/// sign-in included (no signing a person into someone else's account), and renders the refusal as a page.
struct CrossSiteRequestMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    let browser: BrowserSession
    /// Every unsafe request, not only those with the session cookie (the web app's forms).
    var checksEveryChange = false
    /// The answer to a refused request, given why.
    let refusal: @Sendable (_ request: Request, _ reason: String) -> Response

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if context.cookieToken != nil || checksEveryChange, BrowserSession.isUnsafe(request), let reason = browser.forgeryRefusal(request) {
            return refusal(request, reason)
        }
        return try await next(request, context)
    }
}
