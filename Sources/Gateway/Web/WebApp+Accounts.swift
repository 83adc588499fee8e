import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPCCore

/// Sign-in, sign-up and sign-out pages: forms that end in the session cookie (see ``BrowserSession``).
extension WebApp {
    /// Sign-in and sign-up (a signed-in person goes to Today instead), and sign-out.
    func accountRoutes() -> RouteCollection<GatewayRequestContext> {
        let routes = WebScreenRoutes(self)
        routes.page("/", get: { _, _, page in Self.redirect(page.token == nil ? "/signin" : "/today") })
        routes.page("/signin", get: { _, _, page in page.token == nil ? signInPage(page, signingUp: false) : Self.redirect("/today") },
                    post: { request, _, page in await signIn(page, form: await Self.form(request), signingUp: false) })
        routes.page("/signup", get: { _, _, page in page.token == nil ? signInPage(page, signingUp: true) : Self.redirect("/today") },
                    post: { request, _, page in await signIn(page, form: await Self.form(request), signingUp: true) })
        routes.page("/signout", post: { _, _, page in await signOut(page) })
        return routes.collection
    }

    func signInPage(_ page: PageRequest, signingUp: Bool, status: HTTPResponse.Status = .ok, name: String = "",
                            invitation: String = "", error: RPCError? = nil) -> Response {
        let fields = Self.fieldErrors(error)
        let strings = page.strings
        var values: [String: Any] = [
            "title": strings.format(signingUp ? "signUp" : "signIn"), "heading": strings.format(signingUp ? "signUp" : "signIn"),
            "action": signingUp ? "/signup" : "/signin", "submit": strings.format(signingUp ? "signUp" : "signIn"),
            "name": name, "invitation": invitation, "askInvitation": signingUp && signUp == .invite, "signingUp": signingUp,
            "passwordAutocomplete": signingUp ? "new-password" : "current-password",
            "otherPrompt": strings.format(signingUp ? "haveAccount" : "noAccountYet"),
            "otherLink": signingUp ? "/signin" : "/signup", "otherAction": strings.format(signingUp ? "signIn" : "signUp"),
        ]
        if let nameError = fields["name"] { values["nameError"] = nameError }
        if let passwordError = fields["password"] { values["passwordError"] = passwordError }
        if let error, fields["name"] == nil, fields["password"] == nil { values["error"] = error.message }
        return render("signin", page, status: status, values)
    }

    func signIn(_ page: PageRequest, form: [String: String], signingUp: Bool) async -> Response {
        let (name, password, invitation) = (form["name"] ?? "", form["password"] ?? "", form["invitation"] ?? "")
        let outcome: Result<String, RPCError>
        if signingUp {
            outcome = await call(Plantguide_Gateway_V1_GatewayService.createAccount, .with {
                $0.name = name
                $0.password = password
                $0.invitation = invitation
            }, token: nil).map(\.token)
        } else {
            outcome = await call(Plantguide_Gateway_V1_GatewayService.createSession, .with {
                $0.name = name
                $0.password = password
            }, token: nil).map(\.token)
        }
        switch outcome {
        case .success(let token):
            var answer = Self.redirect("/today")
            answer.headers[.setCookie] = browser.setCookie(token)
            return answer
        case .failure(let error):
            var answer = signInPage(page, signingUp: signingUp, status: Self.status(of: error), name: name, invitation: invitation, error: error)
            if let delay = error.details.retryDelay { answer.headers[.retryAfter] = String(Int(delay.components.seconds) + 1) }
            return answer
        }
    }

    /// Ends the session and has the browser forget what it kept of the person: the service worker's copies of
    /// their pages go too, so that the next person at a shared device cannot open them offline.
    func signOut(_ page: PageRequest) async -> Response {
        if page.token != nil {
            _ = await call(Plantguide_Gateway_V1_GatewayService.deleteSession, .with { $0.sessionID = "current" }, token: page.token)
        }
        var answer = Self.redirect("/signin")
        answer.headers[.setCookie] = browser.clearCookie()
        answer.headers[Self.clearSiteData] = #""cache", "storage""#
        return answer
    }

    private static let clearSiteData = HTTPFields.Element.Name("Clear-Site-Data")!
}
