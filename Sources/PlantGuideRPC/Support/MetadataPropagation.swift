import Instrumentation

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
