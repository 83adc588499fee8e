import Foundation
import Hummingbird

/// Sessions for browsers: the token lives in an HttpOnly cookie that page scripts cannot read, and changes made
/// with that cookie must come from the gateway's own pages.
///
/// - The cookie is `plantguide_session`, or `__Host-plantguide_session` with `Secure` when the gateway's public
///   origin is https (``publicOrigin``, for a gateway behind a TLS proxy): the prefix makes browsers refuse it
///   from anywhere but this host, over TLS, for every path. Always `HttpOnly; SameSite=Lax; Path=/`, and it lasts
///   as long as the session's absolute lifetime.
/// - Cross-site request forgery: a call authenticated by the cookie that changes anything (any verb but GET and
///   HEAD), and a sign-in that asks for the cookie, must carry an `Origin` equal to the gateway's (the public
///   origin when set, else the request's own host), or, without `Origin`, `Sec-Fetch-Site: same-origin`. A request
///   with neither is refused: every browser that runs the app sends one. A bearer token in `Authorization` is never
///   sent by a browser on its own, so calls with one are not checked. CORS never allows credentials.
struct BrowserSession: Sendable {
    /// The gateway's origin as browsers reach it (`https://plants.example.org`), when it differs from the request's
    /// own `Host` (behind a proxy); nil: `http://` or `https://` and the `Host` header.
    var publicOrigin: String?
    /// How long the cookie is kept (the session's absolute lifetime, after which the token is refused anyway).
    var maxAge: Int = Int(SessionLifetime.standard.absolute)

    static let plainName = "plantguide_session"
    static let hostOnlyName = "__Host-plantguide_session"

    /// Whether browsers reach the gateway over TLS, as far as the gateway knows.
    var isSecure: Bool { publicOrigin?.lowercased().hasPrefix("https://") ?? false }

    var cookieName: String { isSecure ? Self.hostOnlyName : Self.plainName }

    /// The session token of the request's cookies, if any (either name).
    static func token(in request: Request) -> String? {
        cookie(in: request) { $0 == plainName || $0 == hostOnlyName }
    }

    /// The value of the first non-empty cookie of `request` whose name `wanted` accepts.
    static func cookie(in request: Request, named wanted: (String) -> Bool) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, wanted(parts[0]), !parts[1].isEmpty else { continue }
                return parts[1]
            }
        }
        return nil
    }

    /// The `Set-Cookie` value that keeps `token` in the browser.
    func setCookie(_ token: String) -> String {
        attributes("\(cookieName)=\(token)", maxAge: maxAge)
    }

    /// The `Set-Cookie` value that makes the browser forget its session cookie (signed out).
    func clearCookie() -> String {
        attributes("\(cookieName)=", maxAge: 0)
    }

    private func attributes(_ pair: String, maxAge: Int) -> String {
        pair + "; Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (isSecure ? "; Secure" : "")
    }

    /// Why `request` may not use the session cookie for what it asks, or nil when it may: see the type's comment.
    func forgeryRefusal(_ request: Request) -> String? {
        if let origin = request.headers[.origin] {
            return allowedOrigins(request).contains(origin.lowercased()) ? nil
                : "this request came from \(origin), not from PlantGuide's own pages; sign in there, or send a bearer token"
        }
        if let site = request.headers[Self.fetchSite], site == "same-origin" { return nil }
        return "a change made with the session cookie needs the Origin header a browser sends; programs send a bearer token"
    }

    /// Whether a request with the session cookie changes something (and so must pass ``forgeryRefusal(_:)``).
    static func isUnsafe(_ request: Request) -> Bool {
        ![.get, .head, .options].contains(request.method)
    }

    /// The gateway's origin as the browser of `request` reaches it, for addresses given to other programs (a calendar
    /// app's subscription): the public origin when set, else the page's own `Origin`, else the request's host.
    func origin(of request: Request) -> String {
        if let publicOrigin { return publicOrigin.trimmingCharacters(in: CharacterSet(charactersIn: "/")) }
        if let origin = request.headers[.origin], allowedOrigins(request).contains(origin.lowercased()) { return origin }
        return "http://\(request.head.authority ?? "localhost")"
    }

    private func allowedOrigins(_ request: Request) -> [String] {
        if let publicOrigin { return [publicOrigin.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "/"))] }
        guard let host = request.head.authority?.lowercased() else { return [] }
        return ["http://\(host)", "https://\(host)"]
    }

    private static let fetchSite = HTTPFields.Element.Name("Sec-Fetch-Site")!
}
