import Hummingbird
import Logging
import PlantGuideRPCCore

/// At debug level, one log line per request: its method, its route's template (never the path, which may hold a
/// calendar secret), its status, how long it took, and its trace id (the span's, else the caller's `traceparent`).
///
/// Ours rather than Hummingbird's `LogRequestsMiddleware`, which logs the path itself and knows no trace id.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard logger.logLevel <= .debug else { return try await next(request, context) }
        let started = ContinuousClock.now
        let response = try await next(request, context)
        let traceparent = response.headers[ServerSpanMiddleware.traceResponse] ?? request.headers[Self.traceParent]
        var logger = self.logger
        if let trace = traceparent.flatMap(TraceParent.traceID) { logger[metadataKey: "plantguide.trace_id"] = "\(trace)" }
        logger.debug("answered", metadata: [
            "http.request.method": "\(request.method.rawValue)", "http.route": "\(context.exchange.route ?? "unknown")",
            "http.response.status_code": "\(response.status.code)",
            "plantguide.http.duration_ms": "\((ContinuousClock.now - started).fractionalMilliseconds)",
        ])
        return response
    }

    private static let traceParent = HTTPFields.Element.Name("traceparent")!
}
