import Instrumentation
import Tracing

/// Puts a trace context into call metadata (W3C `traceparent` and `tracestate`, as the bootstrapped instrument
/// writes them), so that the server continues the caller's trace. Keys are lower-case, as metadata keys are.
public struct MetadataInjector: Injector {
    public init() {}

    public func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key.lowercased()] = value
    }
}

/// Reads a trace context from call metadata; the counterpart of ``MetadataInjector``.
public struct MetadataExtractor: Extractor {
    public init() {}

    public func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key.lowercased()]
    }
}

/// W3C Trace Context's `traceparent` value: "00-<trace id, 32 hex>-<parent span id, 16 hex>-<flags>".
public enum TraceParent {
    /// The trace id of a well-formed `traceparent`; nil otherwise.
    public static func traceID(_ value: String) -> String? {
        let fields = value.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count >= 4, fields[1].count == 32, fields[2].count == 16, fields[1].allSatisfy(\.isHexDigit),
              fields[1].contains(where: { $0 != "0" }) else { return nil }
        return String(fields[1])
    }

    /// The trailing metadata key (and HTTP response header) of ``response(of:)``.
    public static let responseKey = "traceresponse"

    /// A span's context as W3C Trace Context level 2's `traceresponse` value ("00-<trace id>-<span id>-<flags>"):
    /// an answer carries it back so that the caller can quote the trace id. Nil when the tracer writes none.
    public static func response(of span: any Span) -> String? {
        var carrier: [String: String] = [:]
        InstrumentationSystem.tracer.inject(span.context, into: &carrier, using: MetadataInjector())
        return carrier["traceparent"]
    }
}
