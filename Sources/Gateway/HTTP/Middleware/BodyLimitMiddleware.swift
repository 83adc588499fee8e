import Hummingbird
import PlantGuideRPCCore

/// Reads a request's body up to `maxBytes` before any route sees it, and answers a larger one with 413 and a
/// `google.rpc.Status` (RESOURCE_EXHAUSTED, REQUEST_TOO_LARGE): no handler reads more than the limit, nor waits on
/// a client sending more.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    let maxBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        do {
            request.body = .init(buffer: try await request.body.collect(upTo: maxBytes))
        } catch {
            return APIAnswer.failure(RPCError(.resourceExhausted, "the body is over \(maxBytes) bytes")
                .reason(RPCErrorReason.requestTooLarge, domain: GatewayErrorReason.domain), status: .contentTooLarge)
        }
        return try await next(request, context)
    }
}
