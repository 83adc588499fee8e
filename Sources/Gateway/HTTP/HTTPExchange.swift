import Tracing

/// One request on its way through the HTTP front: its server span, and its route's template once a route takes it
/// (never the path itself, which may hold a calendar secret), which names the span and the access log's line.
/// A reference, so that what a route sets is seen by the middleware around it.
final class HTTPExchange: @unchecked Sendable {  // used by the request's own task only
    var span: (any Span)?
    private(set) var route: String?

    /// Names the span and the log line after `route` ("PUT /v1/plants/{plant.id}"): a route whose router path is
    /// not its name (the JSON API's catch-all) says its own.
    func named(method: String, route: String) {
        self.route = route
        guard let span else { return }
        span.operationName = "\(method) \(route)"
        span.attributes["http.route"] = route
    }

    /// After the routes: a request no route named is named after the router path that took it (the router's
    /// `endpointPath`, "/plants/{id}"), if any.
    func settle(method: String, endpointPath: String?) {
        if route == nil, let endpointPath { named(method: method, route: endpointPath) }
    }
}
