import PlantGuideProtos

/// `/plantguide.health.v1.Health/Check`, hosted by every server and answered as a probe (ahead of admission).
struct HealthService: RPCService {
    static let checkPath = Plantguide_Health_V1_Health.check.path

    /// Whether the server takes calls (false while draining, or while a hosted service is not ready).
    let isServing: @Sendable () -> Bool
    /// The services the server hosts.
    let serviceNames: Set<String>

    func registerMethods(with router: inout RPCRouter) {
        router.registerProbe(Plantguide_Health_V1_Health.check) { request in
            guard request.service.isEmpty || serviceNames.contains(request.service) else {
                throw RPCError(.notFound, "this server does not host \(request.service)")
            }
            var response = Plantguide_Health_V1_HealthCheckResponse()
            response.status = isServing() ? .serving : .notServing
            return response
        }
    }
}

/// `/plantguide.metrics.v1.Metrics/Scrape`, hosted by every server and answered as a probe (ahead of admission).
struct MetricsService: RPCService {
    let metrics: ServerMetrics

    func registerMethods(with router: inout RPCRouter) {
        router.registerProbe(Plantguide_Metrics_V1_Metrics.scrape) { _ in
            var response = Plantguide_Metrics_V1_ScrapeResponse()
            response.text = metrics.registry.emitToString()
            response.contentType = "text/plain; version=0.0.4"
            return response
        }
    }
}
