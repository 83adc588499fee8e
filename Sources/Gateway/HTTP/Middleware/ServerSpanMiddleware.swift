import Hummingbird
import PlantGuideRPCCore
import Tracing

/// With a tracer bootstrapped, serves each request inside a server span that continues the caller's trace (W3C
/// `traceparent`), named after its route once a route takes it, and sends the span's context back in the
/// `traceresponse` header (W3C Trace Context level 2) so that an app developer can quote the trace id.
///
/// Ours rather than Hummingbird's `TracingMiddleware`, which names spans after the router's path (the JSON API's is
/// one catch-all) and has no `traceresponse`.
struct ServerSpanMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let tracer = InstrumentationSystem.tracer
        if tracer is NoOpTracer {
            let response = try await next(request, context)
            context.exchange.settle(method: request.method.rawValue, endpointPath: context.endpointPath)
            return response
        }
        var parent = ServiceContext.topLevel
        tracer.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        let span = tracer.startSpan(request.method.rawValue, context: parent, ofKind: .server)
        defer { span.end() }
        span.attributes["http.request.method"] = request.method.rawValue
        context.exchange.span = span
        var response = try await ServiceContext.$current.withValue(span.context) { try await next(request, context) }
        context.exchange.settle(method: request.method.rawValue, endpointPath: context.endpointPath)
        span.attributes["http.response.status_code"] = response.status.code
        if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
        if let traceparent = TraceParent.response(of: span) { response.headers[Self.traceResponse] = traceparent }
        return response
    }

    static let traceResponse = HTTPFields.Element.Name(TraceParent.responseKey)!
}

/// Reads a trace context from HTTP request headers.
private struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPFields.Element.Name(key).flatMap { carrier[$0] }
    }
}
