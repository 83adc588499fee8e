import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Traces exported over OTLP/HTTP when an operator sets the standard OpenTelemetry variables: spans only when
/// `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) names a collector, named after the
/// service unless `OTEL_SERVICE_NAME` says otherwise, sampled as `OTEL_TRACES_SAMPLER` and
/// `OTEL_TRACES_SAMPLER_ARG` say (default: every trace, or as the caller's sampled flag says). Without an endpoint
/// no tracer is bootstrapped, and the RPC layer and the HTTP front skip every span.
enum ServiceTracing {
    /// Bootstraps the tracer when an endpoint is set; returns the exporter, to run beside the service.
    static func bootstrap(service name: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> (any Service)?
    {
        // Empty counts as unset: a compose file passes `${OTEL_EXPORTER_OTLP_ENDPOINT:-}` through either way.
        let endpoints = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].compactMap { environment[$0] }
        guard endpoints.contains(where: { !$0.isEmpty }) else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = name
        configuration.logs.enabled = false  // logs stay on standard error (--log-format json joins them by trace id)
        configuration.metrics.enabled = false  // metrics stay in each service's Prometheus scrape
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        return backend.service
    }
}
