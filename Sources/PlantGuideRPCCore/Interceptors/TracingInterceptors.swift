import Foundation
import Tracing

/// Each call a server span (when a tracer is bootstrapped, swift-distributed-tracing), continuing the caller's
/// trace from its W3C `traceparent` metadata, current while the handler runs (so that its own calls and queries
/// are children), and named in the answer's trailing `traceresponse` for the caller to quote. The time the call
/// waited before its handler ran is the span's `plantguide.rpc.queue_wait_us`. Inactive, and free, when no tracer
/// was bootstrapped before the server was made (services bootstrap theirs first).
public struct ServerTracingInterceptor: RPCServerInterceptor {
    public init() {}

    public var isActive: Bool { !(InstrumentationSystem.tracer is NoOpTracer) }

    public func intercept(_ call: RPCServerCall, next: RPCServerCall.Next) async throws -> RPCServerResponse {
        let tracer = InstrumentationSystem.tracer
        guard !(tracer is NoOpTracer) else { return try await next(call) }
        var parent = ServiceContext.topLevel
        tracer.extract(call.context.metadata, into: &parent, using: MetadataExtractor())
        let span = tracer.startSpan(RPCSpan.name(call.context.method), context: parent, ofKind: .server)
        defer { span.end() }
        RPCSpan.describe(span, path: call.context.method)
        if let arrived = call.context.arrived {
            span.attributes["plantguide.rpc.queue_wait_us"] = Int(arrived.duration(until: .now()).fractionalMilliseconds * 1_000)
        }
        let traceResponse = TraceParent.response(of: span)
        do {
            var response = try await ServiceContext.$current.withValue(span.context) { try await next(call) }
            response.trailingMetadata[TraceParent.responseKey] = traceResponse
            return response
        } catch {
            var mapped = RPCError(mapping: error)
            RPCSpan.fail(span, with: mapped)
            mapped.trailingMetadata[TraceParent.responseKey] = traceResponse
            throw mapped
        }
    }
}

/// Each call a client span (when a tracer is bootstrapped), child of the task's current span, whose context
/// travels in the call's metadata (W3C `traceparent`) for the server to continue. Inactive, and free, when no
/// tracer was bootstrapped before the client was made.
public struct ClientTracingInterceptor: RPCClientInterceptor {
    public init() {}

    public var isActive: Bool { !(InstrumentationSystem.tracer is NoOpTracer) }

    public func intercept(_ call: RPCClientCall, next: RPCClientCall.Next) async throws -> RPCReply<Data> {
        let tracer = InstrumentationSystem.tracer
        guard !(tracer is NoOpTracer) else { return try await next(call) }
        let span = tracer.startSpan(RPCSpan.name(call.path), ofKind: .client)
        defer { span.end() }
        RPCSpan.describe(span, path: call.path)
        var call = call
        tracer.inject(span.context, into: &call.options.metadata, using: MetadataInjector())
        do {
            return try await next(call)
        } catch {
            RPCSpan.fail(span, with: RPCError(mapping: error))
            throw error
        }
    }
}
