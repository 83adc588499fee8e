import Tracing

/// How RPC calls look as spans, on both sides, in OpenTelemetry's semantic conventions for RPC: named
/// "package.Service/Method", with `rpc.system`, `rpc.service`, `rpc.method`, and the gRPC status code of a failure.
package enum RPCSpan {
    /// "plantguide.collection.v1.CollectionService/GetPlant" for "/plantguide.collection.v1.CollectionService/GetPlant".
    package static func name(_ path: String) -> String {
        path.hasPrefix("/") ? String(path.dropFirst()) : path
    }

    package static func describe(_ span: any Span, path: String) {
        let parts = name(path).split(separator: "/", maxSplits: 1)
        span.attributes["rpc.system"] = "plantguide"
        if parts.count == 2 {
            span.attributes["rpc.service"] = String(parts[0])
            span.attributes["rpc.method"] = String(parts[1])
        }
    }

    /// Marks the span failed with `error`'s status.
    package static func fail(_ span: any Span, with error: RPCError) {
        span.attributes["rpc.grpc.status_code"] = error.code.rawValue
        span.setStatus(SpanStatus(code: .error, message: "\(error.code.name): \(error.message)"))
    }
}
