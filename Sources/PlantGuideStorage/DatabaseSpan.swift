import Tracing

/// Database transactions as client spans, in OpenTelemetry's database conventions ("sqlite read",
/// "postgresql write", with `db.system.name`), children of the call that makes them, when a tracer is
/// bootstrapped; nothing otherwise. Background work outside any call (a dispatcher's polls) makes none: a root
/// span a second would bury the requests' traces.
enum DatabaseSpan {
    static func traced<Result>(_ system: String, _ operation: String, _ body: () async throws -> Result) async throws -> Result {
        let tracer = InstrumentationSystem.tracer
        guard !(tracer is NoOpTracer), let parent = ServiceContext.current else { return try await body() }
        let span = tracer.startSpan("\(system) \(operation)", context: parent, ofKind: .client)
        defer { span.end() }
        span.attributes["db.system.name"] = system
        span.attributes["db.operation.name"] = operation
        do {
            return try await body()
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }
}
