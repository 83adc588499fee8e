import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPCCore
import SwiftProtobuf
import Tracing

/// The JSON API: every gateway method with a `google.api.http` binding, transcoded to the handlers the RPC front
/// serves (through the RPC router, in process). One route per HTTP method under `/v1` takes every API path, and the
/// router of methods matches it against the bindings' templates (`{plant_id}`, `{plant.id}`, custom verbs such as
/// `:favorite`): an unknown path is 404, a known path with another verb 405 with its `Allow`.
///
/// The caller's credentials come from ``SessionAuthenticationMiddleware``; a sign-in that asks for a session
/// cookie gets one instead of the token in its body, and a sign-out of the cookie's own session clears it.
struct JSONAPIRoutes: Sendable {
    private struct Route: Sendable {
        let method: any AnyRPCMethod
        let binding: HTTPBinding
        let template: PathTemplate
    }

    private let routes: [Route]
    private let router: RPCRouter
    private let browser: BrowserSession
    private let timeout: Duration
    /// Where the handlers run: the RPC I/O thread, whose calls to the services they await.
    private let handlerExecutor: (any TaskExecutor)?

    init(router: RPCRouter, methods: [any AnyRPCMethod], browser: BrowserSession, timeout: Duration = .seconds(30),
         handlerExecutor: (any TaskExecutor)? = nil) {
        routes = methods.compactMap { method in
            method.http.map { Route(method: method, binding: $0, template: PathTemplate($0.path)) }
        }
        self.router = router
        self.browser = browser
        self.timeout = timeout
        self.handlerExecutor = handlerExecutor
    }

    func collection() -> RouteCollection<GatewayRequestContext> {
        let collection = RouteCollection(context: GatewayRequestContext.self)
        // Every verb a client may send, not only those the bindings use: the router answers a path's other verbs
        // (HEAD, TRACE...) with 405 and its Allow, where Hummingbird's would be a bare 404.
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete, .head, .trace, .connect, HTTPRequest.Method("QUERY")!] {
            collection.on("/v1/**", method: method) { request, context in await answer(request, context) }
        }
        // A preflight without Origin (CORSMiddleware answers those with one): every path takes OPTIONS.
        collection.on("/v1/**", method: .options) { _, _ in Response(status: .noContent) }
        return collection
    }

    private func answer(_ request: Request, _ context: GatewayRequestContext) async -> Response {
        let path = request.uri.path
        let verb = request.method.rawValue
        let candidates = routes.compactMap { route in route.template.match(path).map { (route, $0) } }
        guard !candidates.isEmpty else { return APIAnswer.failure(RPCError(.notFound, "no route for \(path)")) }
        guard let (route, variables) = candidates.first(where: { $0.0.binding.verb == verb }) else {
            return APIAnswer.methodNotAllowed(verb, path, allowed: candidates.map(\.0.binding.verb))
        }
        context.exchange.named(method: verb, route: route.binding.path)
        // Read whole already, within the limit (BodyLimitMiddleware).
        let body = (try? await request.body.collect(upTo: .max)).map { Data(buffer: $0) } ?? Data()
        let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        do {
            let message = try JSONTranscoder.request(route.method, binding: route.binding, body: body,
                                                     upload: Self.upload(body, contentType: request.headers[.contentType] ?? ""),
                                                     pathVariables: variables, query: query)
            let wantsCookie = Self.asksForCookie(message)
            if wantsCookie, let refusal = browser.forgeryRefusal(request) { return APIAnswer.crossSiteRefusal(refusal) }
            var metadata: [String: String] = [:]
            if let authorization = context.authorization { metadata["authorization"] = authorization }
            if let owner = request.headers[APIAnswer.collectionOwner] { metadata[CallerAuthenticator.collectionOwnerKey] = owner }
            // The trace the handler's log lines and calls belong to: this request's span, or else the app's own.
            if let span = context.exchange.span {
                InstrumentationSystem.tracer.inject(span.context, into: &metadata, using: MetadataInjector())
            } else if let traceparent = request.headers[Self.traceParent] {
                metadata["traceparent"] = traceparent
            }
            let outcome = await router.invoke(route.method.path, payload: try message.serializedData(), metadata: metadata, timeout: timeout,
                                             on: handlerExecutor)
            if let error = outcome.error { return APIAnswer.failure(error) }
            if wantsCookie { return try cookieAnswer(route.method, payload: outcome.payload ?? Data()) }
            if let cookieToken = context.cookieToken, Self.endsOwnSession(message, cookieToken: cookieToken) {
                var answer = APIAnswer.json(status: .ok, try JSONTranscoder.response(route.method, payload: outcome.payload ?? Data()))
                answer.headers[.setCookie] = browser.clearCookie()
                return answer
            }
            if !route.binding.responseBody.isEmpty {
                let answer = try JSONTranscoder.binaryResponse(route.method, payload: outcome.payload ?? Data(), field: route.binding.responseBody)
                return APIAnswer.binary(answer, ifNoneMatch: request.headers[.ifNoneMatch])
            }
            return APIAnswer.json(status: .ok, try JSONTranscoder.response(route.method, payload: outcome.payload ?? Data()))
        } catch let error as RPCError {
            return APIAnswer.failure(error)
        } catch {
            return APIAnswer.failure(RPCError(.internal, "the answer could not be read"))
        }
    }

    /// Whether `message` is a sign-up or sign-in that asks for a session cookie instead of a token in the body.
    private static func asksForCookie(_ message: any SwiftProtobuf.Message) -> Bool {
        (message as? Plantguide_Gateway_V1_CreateSessionRequest)?.cookie ?? (message as? Plantguide_Gateway_V1_CreateAccountRequest)?.cookie
            ?? (message as? Plantguide_Gateway_V1_CreatePasskeySessionRequest)?.cookie ?? false
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
        var answer = APIAnswer.json(status: .ok, try JSONTranscoder.response(method, payload: payload))
        answer.headers[.setCookie] = browser.setCookie(token)
        answer.headers[.cacheControl] = "no-store"
        return answer
    }

    /// A body that is not JSON: a raw image (image/*, application/octet-stream) or a multipart form's file.
    private static func upload(_ body: Data, contentType: String) -> Data? {
        let type = contentType.lowercased()
        if type.hasPrefix("image/") || type.hasPrefix("application/octet-stream") { return body }
        if let boundary = MultipartBody.boundary(contentType: contentType) { return MultipartBody.firstFile(body, boundary: boundary) ?? Data() }
        return nil
    }

    private static let traceParent = HTTPFields.Element.Name("traceparent")!
}
