import Foundation
import Hummingbird

/// What operators and orchestrators ask: `/healthz` (the process answers), `/readyz` (the services and the
/// database answer: 503 otherwise, with which do not), `/metrics` (Prometheus text) and `/openapi.json` (the JSON
/// API's document, generated from the same descriptors by Scripts/generate-openapi.py).
struct ProbeRoutes: Sendable {
    let readiness: @Sendable () async -> (ready: Bool, body: Data)
    let metricsText: @Sendable () -> String
    /// `Resources/openapi.json`, read once.
    let openAPIDocument = Bundle.module.url(forResource: "openapi", withExtension: "json").flatMap { try? Data(contentsOf: $0) } ?? Data("{}".utf8)

    func collection() -> RouteCollection<GatewayRequestContext> {
        let routes = RouteCollection(context: GatewayRequestContext.self)
        routes.get("/healthz") { _, _ in APIAnswer.json(status: .ok, Data(#"{"status":"SERVING"}"#.utf8)) }
        routes.get("/openapi.json") { _, _ in APIAnswer.json(status: .ok, openAPIDocument) }
        routes.get("/readyz") { _, _ in
            let (ready, body) = await readiness()
            return APIAnswer.json(status: ready ? .ok : .serviceUnavailable, body)
        }
        routes.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(string: metricsText())))
        }
        return routes
    }
}
