import Foundation
import Hummingbird

/// One screen's routes: each path with what it does on GET and on POST, given the request's ``WebApp/PageRequest``.
/// A method the path does not take answers 405 with a page saying so and `Allow` (a form's address opened as a
/// link, say).
struct WebScreenRoutes {
    typealias Context = GatewayRequestContext
    typealias Page = @Sendable (_ request: Request, _ context: Context, _ page: WebApp.PageRequest) async -> Response

    let app: WebApp
    let collection = RouteCollection(context: GatewayRequestContext.self)

    init(_ app: WebApp) {
        self.app = app
    }

    func page(_ path: RouterPath, get: Page? = nil, post: Page? = nil) {
        let allowed = [get == nil ? nil : "GET", post == nil ? nil : "POST"].compactMap { $0 }.joined(separator: ", ")
        let app = self.app
        for (method, handler) in [(HTTPRequest.Method.get, get), (.post, post)] {
            collection.on(path, method: method) { request, context in
                let page = app.pageRequest(request)
                guard let handler else {
                    var answer = app.render("error", page, status: .methodNotAllowed,
                                            ["title": page.strings.format("somethingWrong"), "message": "\(request.method) \(request.uri.path)"])
                    answer.headers[.allow] = allowed
                    return answer
                }
                return await handler(request, context, page)
            }
        }
    }

    /// A path parameter as the person's id: percent-decoded ("p1%7Cwatering" is "p1|watering").
    static func parameter(_ name: String, _ context: Context) -> String? {
        context.parameters.get(name).flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether htmx sent the request (it swaps part of the page with the answer).
    static func byScript(_ request: Request) -> Bool {
        request.headers[WebApp.htmxRequest] == "true"
    }
}
