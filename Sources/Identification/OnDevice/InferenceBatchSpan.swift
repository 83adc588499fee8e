import Tracing

/// How one run of the model looks in a trace. A batch serves several requests, each of its own trace, so the
/// batch span sits under the first request's span (an operator reading that trace sees the model's time) and
/// links to the others (their traces show which batch served them), as OpenTelemetry models batch processing.
enum InferenceBatchSpan {
    /// Starts the span of a batch of `images` images for `requests` requests whose trace contexts are `traced`
    /// (oldest first), the oldest of which has waited `waited`; nil when no tracer is bootstrapped or no request
    /// was traced.
    static func start(images: Int, requests: Int, traced: [ServiceContext], waited: Duration) -> (any Span)? {
        let tracer = InstrumentationSystem.tracer
        guard !(tracer is NoOpTracer), let parent = traced.first else { return nil }
        let span = tracer.startSpan("inference batch", context: parent, ofKind: .internal)
        span.attributes["plantguide.inference.batch_size"] = images
        span.attributes["plantguide.inference.requests"] = requests
        span.attributes["plantguide.inference.queue_wait_us"] = Int(waited / .microseconds(1))
        for context in traced.dropFirst() {
            span.addLink(SpanLink(context: context, attributes: [:]))
        }
        return span
    }
}
