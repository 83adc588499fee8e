@testable import Gateway
import Hummingbird
import Testing

/// The session cookie's flags and the cross-site checks, without TLS (a gateway reached as http://host:port).
@Suite("Gateway: browser sessions")
struct BrowserSessionTests {
    private static func request(_ method: HTTPRequest.Method, _ headers: HTTPFields) -> Request {
        Request(head: HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:7080", path: "/v1/plants", headerFields: headers),
                body: .init(buffer: ByteBuffer()))
    }

    @Test("without TLS the cookie has no __Host- prefix nor Secure, and is still HttpOnly and SameSite=Lax")
    func plainCookie() {
        let browser = BrowserSession(publicOrigin: nil, maxAge: 600)
        #expect(browser.setCookie("pg_ab_cd") == "plantguide_session=pg_ab_cd; Path=/; Max-Age=600; HttpOnly; SameSite=Lax")
        #expect(browser.clearCookie() == "plantguide_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
        let secure = BrowserSession(publicOrigin: "https://plants.example.org", maxAge: 600)
        #expect(secure.setCookie("pg_ab_cd") == "__Host-plantguide_session=pg_ab_cd; Path=/; Max-Age=600; HttpOnly; SameSite=Lax; Secure")
    }

    @Test("the token is read from either cookie name among others")
    func readsToken() {
        let headers: HTTPFields = [.cookie: "theme=dark; plantguide_session=pg_1_2; other=x"]
        #expect(BrowserSession.token(in: Self.request(.get, headers)) == "pg_1_2")
        #expect(BrowserSession.token(in: Self.request(.get, [.cookie: "__Host-plantguide_session=pg_3_4"])) == "pg_3_4")
        #expect(BrowserSession.token(in: Self.request(.get, [.cookie: "plantguide_session="])) == nil)
        #expect(BrowserSession.token(in: Self.request(.get, [:])) == nil)
    }

    @Test("changes are accepted from the request's own host (either scheme) or same-origin fetches; refused otherwise")
    func forgery() {
        let browser = BrowserSession(publicOrigin: nil)
        let fetchSite = HTTPFields.Element.Name("Sec-Fetch-Site")!
        #expect(browser.forgeryRefusal(Self.request(.post, [.origin: "http://127.0.0.1:7080"])) == nil)
        #expect(browser.forgeryRefusal(Self.request(.post, [.origin: "https://127.0.0.1:7080"])) == nil)
        #expect(browser.forgeryRefusal(Self.request(.post, [fetchSite: "same-origin"])) == nil)
        #expect(browser.forgeryRefusal(Self.request(.post, [.origin: "http://127.0.0.1:7081"])) != nil, "another port is another origin")
        #expect(browser.forgeryRefusal(Self.request(.post, [.origin: "null"])) != nil)
        #expect(browser.forgeryRefusal(Self.request(.post, [fetchSite: "cross-site"])) != nil)
        #expect(browser.forgeryRefusal(Self.request(.post, [:])) != nil)
        #expect(!BrowserSession.isUnsafe(Self.request(.get, [:])) && BrowserSession.isUnsafe(Self.request(.delete, [:])))
        let behindProxy = BrowserSession(publicOrigin: "https://plants.example.org/")
        #expect(behindProxy.forgeryRefusal(Self.request(.post, [.origin: "https://plants.example.org"])) == nil)
        #expect(behindProxy.forgeryRefusal(Self.request(.post, [.origin: "http://127.0.0.1:7080"])) != nil)
    }
}
