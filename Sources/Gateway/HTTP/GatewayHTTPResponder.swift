import Foundation
import Hummingbird
import Logging
import PlantGuideProtos
import PlantGuideRPC
import SwiftProtobuf
import Tracing

/// A calendar feed as the HTTP front serves it: the document (nil when the client's version is current) and its
/// version, the ETag.
struct CalendarFeedAnswer: Sendable {
    var ics: String?
    var version: String
}

/// The gateway's HTTP/JSON front: every gateway method with a `google.api.http` binding, transcoded to the same
/// handlers the RPC front serves (through the RPC router, in process), plus /healthz, /readyz, /metrics,
/// /openapi.json (generated from the same descriptors by Scripts/generate-openapi.py), the calendar feeds, the
/// reminder stream and the web app's pages (``WebApp``).
/// Bearer tokens travel as the Authorization header; CORS lets browser apps call it (never with credentials). The
/// gateway's own pages use a session cookie instead (``BrowserSession``: cookie flags and forgery checks).
struct GatewayHTTPResponder: HTTPResponder {
    typealias Context = GatewayRequestContext

    private struct Route: Sendable {
        let method: any AnyRPCMethod
        let binding: HTTPBinding
        let template: PathTemplate
    }

    private let routes: [Route]
    private let router: RPCRouter
    private let readiness: @Sendable () async -> (ready: Bool, body: Data)
    private let metricsText: @Sendable () -> String
    /// The iCalendar feed of a calendar secret's owner, given the version the client holds; nil for an unknown
    /// or revoked secret.
    private let calendar: @Sendable (_ secret: String, _ ifVersion: String) async throws -> CalendarFeedAnswer?
    private let reminderStream: ReminderStream
    /// `Resources/openapi.json`, read once.
    private let openAPIDocument: Data
    private let browser: BrowserSession
    private let clientAddresses: ClientAddresses
    /// The pages people use (nil: the front serves the API alone).
    private let web: WebApp?
    private let maxBodyBytes: Int
    private let timeout: Duration
    /// Where the handlers run: the RPC I/O thread, whose calls to the services they await.
    private let handlerExecutor: (any TaskExecutor)?
    private let logger: Logger

    init(router: RPCRouter, methods: [any AnyRPCMethod], maxBodyBytes: Int, timeout: Duration = .seconds(30),
         handlerExecutor: (any TaskExecutor)? = nil, metrics: @escaping @Sendable () -> String,
         readiness: @escaping @Sendable () async -> (ready: Bool, body: Data),
         calendar: @escaping @Sendable (_ secret: String, _ ifVersion: String) async throws -> CalendarFeedAnswer?,
         reminderStream: ReminderStream, browser: BrowserSession = BrowserSession(), clientAddresses: ClientAddresses = ClientAddresses(),
         web: WebApp? = nil, logger: Logger = Logger(label: "plantguide-gateway")) {
        routes = methods.compactMap { method in
            method.http.map { Route(method: method, binding: $0, template: PathTemplate($0.path)) }
        }
        self.router = router
        self.maxBodyBytes = maxBodyBytes
        self.timeout = timeout
        self.handlerExecutor = handlerExecutor
        self.logger = logger
        self.readiness = readiness
        metricsText = metrics
        self.calendar = calendar
        self.reminderStream = reminderStream
        self.browser = browser
        self.clientAddresses = clientAddresses
        self.web = web
        openAPIDocument = Bundle.module.url(forResource: "openapi", withExtension: "json").flatMap { try? Data(contentsOf: $0) } ?? Data("{}".utf8)
    }

    /// Answers `request`; with a tracer bootstrapped, inside a server span that continues the caller's trace (W3C
    /// `traceparent`), whose context comes back in the `traceresponse` header (W3C Trace Context level 2) so that an
    /// app developer can quote the trace id. At debug level, one log line per request, with its trace id.
    func respond(to request: Request, context: Context) async throws -> Response {
        let facts = HTTPRequestFacts(
            clientAddress: clientAddresses.client(peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: Self.forwardedFor]),
            authority: request.head.authority?.lowercased())
        return try await HTTPRequestFacts.$current.withValue(facts) { try await respondTraced(to: request) }
    }

    private func respondTraced(to request: Request) async throws -> Response {
        let started = ContinuousClock.now
        let tracer = InstrumentationSystem.tracer
        let exchange: Exchange
        var response: Response
        var traceparent = request.headers[Self.traceParent]
        if tracer is NoOpTracer {
            exchange = Exchange(span: nil)
            response = try await answer(request, exchange)
        } else {
            var parent = ServiceContext.topLevel
            tracer.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
            let span = tracer.startSpan(request.method.rawValue, context: parent, ofKind: .server)
            defer { span.end() }
            span.attributes["http.request.method"] = request.method.rawValue
            exchange = Exchange(span: span)
            response = try await ServiceContext.$current.withValue(span.context) { try await answer(request, exchange) }
            span.attributes["http.response.status_code"] = response.status.code
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            traceparent = TraceParent.response(of: span)
            if let traceparent { response.headers[Self.traceResponse] = traceparent }
        }
        if logger.logLevel <= .debug {
            logAnswer(request, response, route: exchange.route, traceparent: traceparent, took: ContinuousClock.now - started)
        }
        return response
    }

    /// The access log's line of one request (debug level), with its trace id.
    private func logAnswer(_ request: Request, _ response: Response, route: String?, traceparent: String?, took: Duration) {
        var logger = self.logger
        if let trace = traceparent.flatMap(TraceParent.traceID) { logger[metadataKey: "plantguide.trace_id"] = "\(trace)" }
        logger.debug("answered", metadata: [
            "http.request.method": "\(request.method.rawValue)", "http.route": "\(route ?? "unknown")",
            "http.response.status_code": "\(response.status.code)", "plantguide.http.duration_ms": "\(took.fractionalMilliseconds)",
        ])
    }

    private static let traceResponse = HTTPFields.Element.Name(TraceParent.responseKey)!
    private static let traceParent = HTTPFields.Element.Name("traceparent")!
    private static let forwardedFor = HTTPFields.Element.Name("X-Forwarded-For")!

    /// One request on its way through the front: its span, and its route's template once known (never the path
    /// itself, which may hold a calendar secret), which names the span and the log line.
    private final class Exchange: @unchecked Sendable {  // used by the request's own task only
        let span: (any Span)?
        var route: String?

        init(span: (any Span)?) { self.span = span }

        func named(method: String, route: String) {
            self.route = route
            guard let span else { return }
            span.operationName = "\(method) \(route)"
            span.attributes["http.route"] = route
        }
    }

    private func answer(_ request: Request, _ exchange: Exchange) async throws -> Response {
        if request.method == .options { return Self.cors(Response(status: .noContent)) }
        let path = request.uri.path
        if ["/healthz", "/openapi.json", "/readyz", "/metrics", ReminderStream.path].contains(path) {
            exchange.named(method: request.method.rawValue, route: path)
        }
        switch path {
        case "/healthz": return Self.json(status: .ok, Data(#"{"status":"SERVING"}"#.utf8))
        case "/openapi.json": return Self.json(status: .ok, openAPIDocument)
        case "/readyz":
            let (ready, body) = await readiness()
            return Self.json(status: ready ? .ok : .serviceUnavailable, body)
        case "/metrics":
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                            body: .init(byteBuffer: ByteBuffer(string: metricsText())))
        default: break
        }
        if let web, web.serves(path) {
            exchange.named(method: request.method.rawValue, route: WebApp.route(of: path))
            return await web.response(to: request)
        }
        // A browser's session cookie stands for the bearer token it holds, when the request sends none.
        let cookieToken = request.headers[.authorization] == nil ? BrowserSession.token(in: request) : nil
        let authorization = request.headers[.authorization] ?? cookieToken.map { "Bearer \($0)" }
        if cookieToken != nil, BrowserSession.isUnsafe(request), let refusal = browser.forgeryRefusal(request) {
            return Self.crossSiteRefusal(refusal)
        }
        if path == ReminderStream.path { return await reminderStream.response(to: request, authorization: authorization) }
        if path.hasPrefix("/v1/calendar/"), path.hasSuffix(".ics"), request.method == .get {
            exchange.named(method: "GET", route: "/v1/calendar/{secret}.ics")
            return await calendarFeed(secret: String(path.dropFirst("/v1/calendar/".count).dropLast(".ics".count)),
                                      ifNoneMatch: request.headers[.ifNoneMatch] ?? "")
        }
        let verb = request.method.rawValue
        let candidates = routes.compactMap { route in route.template.match(path).map { (route, $0) } }
        guard !candidates.isEmpty else { return Self.failure(RPCError(.notFound, "no route for \(path)")) }
        guard let (route, variables) = candidates.first(where: { $0.0.binding.verb == verb }) else {
            return Self.methodNotAllowed(verb, path, allowed: candidates.map(\.0.binding.verb))
        }
        exchange.named(method: verb, route: route.binding.path)
        let body: Data
        do {
            body = Data(buffer: try await request.body.collect(upTo: maxBodyBytes))
        } catch {
            return Self.failure(RPCError(.resourceExhausted, "the body is over \(maxBodyBytes) bytes")
                .reason(RPCErrorReason.requestTooLarge, domain: GatewayErrorReason.domain), status: .contentTooLarge)
        }
        let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        do {
            let message = try JSONTranscoder.request(route.method, binding: route.binding, body: body,
                                                     upload: Self.upload(body, contentType: request.headers[.contentType] ?? ""),
                                                     pathVariables: variables, query: query)
            let wantsCookie = Self.asksForCookie(message)
            if wantsCookie, let refusal = browser.forgeryRefusal(request) { return Self.crossSiteRefusal(refusal) }
            var metadata: [String: String] = [:]
            if let authorization { metadata["authorization"] = authorization }
            if let owner = request.headers[Self.collectionOwner] { metadata[CallerAuthenticator.collectionOwnerKey] = owner }
            // The trace the handler's log lines and calls belong to: this request's span, or else the app's own.
            if let span = exchange.span {
                InstrumentationSystem.tracer.inject(span.context, into: &metadata, using: MetadataInjector())
            } else if let traceparent = request.headers[Self.traceParent] {
                metadata["traceparent"] = traceparent
            }
            let outcome = await router.invoke(route.method.path, payload: try message.serializedData(), metadata: metadata, timeout: timeout,
                                             on: handlerExecutor)
            if let error = outcome.error { return Self.failure(error) }
            if wantsCookie { return try cookieAnswer(route.method, payload: outcome.payload ?? Data()) }
            if let cookieToken, Self.endsOwnSession(message, cookieToken: cookieToken) {
                var answer = Self.json(status: .ok, try JSONTranscoder.response(route.method, payload: outcome.payload ?? Data()))
                answer.headers[.setCookie] = browser.clearCookie()
                return answer
            }
            if !route.binding.responseBody.isEmpty {
                let answer = try JSONTranscoder.binaryResponse(route.method, payload: outcome.payload ?? Data(), field: route.binding.responseBody)
                return Self.binary(answer, ifNoneMatch: request.headers[.ifNoneMatch])
            }
            return Self.json(status: .ok, try JSONTranscoder.response(route.method, payload: outcome.payload ?? Data()))
        } catch let error as RPCError {
            return Self.failure(error)
        }
    }

    /// Whether `message` is a sign-up or sign-in that asks for a session cookie instead of a token in the body.
    private static func asksForCookie(_ message: any SwiftProtobuf.Message) -> Bool {
        (message as? Plantguide_Gateway_V1_CreateSessionRequest)?.cookie ?? (message as? Plantguide_Gateway_V1_CreateAccountRequest)?.cookie
            ?? (message as? Plantguide_Gateway_V1_CreatePasskeySessionRequest)?.cookie ?? false
    }

    /// 403 for a cookie-authenticated change (or cookie sign-in) that did not come from the gateway's own pages.
    private static func crossSiteRefusal(_ reason: String) -> Response {
        failure(RPCError(.permissionDenied, reason).reason(GatewayErrorReason.crossSiteRequest, domain: GatewayErrorReason.domain))
    }

    /// Whether `message` signs out the session of the cookie `cookieToken` ("current", or its id).
    private static func endsOwnSession(_ message: any SwiftProtobuf.Message, cookieToken: String) -> Bool {
        guard let request = message as? Plantguide_Gateway_V1_DeleteSessionRequest else { return false }
        return request.sessionID == "current" || AccountStore.id(ofSecret: cookieToken, prefix: "pg_") == request.sessionID
    }

    /// A sign-up's or sign-in's answer for a browser: the token goes into the session cookie, and the body keeps
    /// everything but the token, which page scripts never see. Both answers are a user id and a token, with the same
    /// field numbers, so one message type reads and rewrites either.
    private func cookieAnswer(_ method: any AnyRPCMethod, payload: Data) throws -> Response {
        var session = try Plantguide_Gateway_V1_CreateSessionResponse(serializedBytes: payload)
        let token = session.token
        session.token = ""
        let payload = try session.serializedData()
        var answer = Self.json(status: .ok, try JSONTranscoder.response(method, payload: payload))
        answer.headers[.setCookie] = browser.setCookie(token)
        answer.headers[.cacheControl] = "no-store"
        return answer
    }

    /// A subscribed calendar: the secret in the path stands for the token (calendar apps send no headers). The
    /// feed's version is its ETag; a poll with that version in If-None-Match is 304 without the feed being made.
    private func calendarFeed(secret: String, ifNoneMatch: String) async -> Response {
        let held = Self.entityTags(ifNoneMatch)
        do {
            guard let feed = try await calendar(secret, held.first ?? "") else { return Self.failure(RPCError(.notFound, "no such calendar")) }
            var headers: HTTPFields = [.cacheControl: "private, max-age=300", .eTag: "\"\(feed.version)\""]
            guard let ics = feed.ics, !held.contains(feed.version), !held.contains("*") else {
                return Self.cors(Response(status: .notModified, headers: headers))
            }
            headers[.contentType] = "text/calendar; charset=utf-8"
            return Self.cors(Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: ics))))
        } catch let error as RPCError {
            return Self.failure(error)
        } catch {
            return Self.failure(RPCError(.internal, "the calendar could not be made"))
        }
    }

    /// The entity tags of an If-None-Match header (`"a", W/"b"`), without quotes or weakness marks; `*` (any) as
    /// itself.
    static func entityTags(_ header: String) -> [String] {
        header.split(separator: ",").compactMap { part in
            var tag = part.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return tag }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            guard tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") else { return nil }
            return String(tag.dropFirst().dropLast())
        }
    }

    /// A body that is not JSON: a raw image (image/*, application/octet-stream) or a multipart form's file.
    private static func upload(_ body: Data, contentType: String) -> Data? {
        let type = contentType.lowercased()
        if type.hasPrefix("image/") || type.hasPrefix("application/octet-stream") { return body }
        if let boundary = MultipartBody.boundary(contentType: contentType) { return MultipartBody.firstFile(body, boundary: boundary) ?? Data() }
        return nil
    }

    /// Content-addressed bytes: an ETag, a year's caching, and 304 when the client has them already.
    private static func binary(_ answer: (body: Data, mediaType: String?, etag: String?), ifNoneMatch: String?) -> Response {
        var headers: HTTPFields = [.contentType: answer.mediaType ?? "application/octet-stream", .cacheControl: "private, max-age=31536000, immutable"]
        if let etag = answer.etag {
            let quoted = "\"\(etag)\""
            headers[.eTag] = quoted
            if let ifNoneMatch, ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == quoted }) {
                return cors(Response(status: .notModified, headers: headers))
            }
        }
        return cors(Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body))))
    }

    static func json(status: HTTPResponse.Status, _ body: Data) -> Response {
        cors(Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body))))
    }

    /// 405, with the verbs `path` takes in Allow (and OPTIONS, which every path takes).
    static func methodNotAllowed(_ verb: String, _ path: String, allowed: [String]) -> Response {
        var refusal = failure(RPCError(.unimplemented, "\(verb) is not allowed on \(path)"), status: .methodNotAllowed)
        refusal.headers[.allow] = (allowed + ["OPTIONS"]).joined(separator: ", ")
        return refusal
    }

    static func failure(_ error: RPCError, status: HTTPResponse.Status? = nil) -> Response {
        var response = json(status: status ?? .init(code: HTTPStatusMapping.status(for: error.code)), JSONTranscoder.error(error))
        if let delay = error.details.retryDelay { response.headers[.retryAfter] = String(JSONTranscoder.retryAfterSeconds(delay)) }
        return response
    }

    static let collectionOwner = HTTPFields.Element.Name(CallerAuthenticator.collectionOwnerKey)!

    static func cors(_ response: Response) -> Response {
        var response = response
        response.headers[.accessControlAllowOrigin] = "*"
        response.headers[.accessControlAllowHeaders] = "authorization, content-type, plantguide-collection-owner"
        response.headers[.accessControlAllowMethods] = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
        return response
    }
}

/// Reads a trace context from HTTP request headers.
private struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPFields.Element.Name(key).flatMap { carrier[$0] }
    }
}
