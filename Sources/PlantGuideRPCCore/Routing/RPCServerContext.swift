import Logging

/// What a handler knows about the call it serves.
public struct RPCServerContext: Sendable {
    /// The client's request id (unique among that client's calls in flight).
    public let requestID: UInt64
    /// "/package.Service/Method".
    public let method: String
    /// The request's metadata (lower-case keys).
    public let metadata: [String: String]
    /// When the caller stops waiting. Pass what is left of it to downstream calls.
    public let deadline: ContinuousClock.Instant
    /// When the call arrived at the server, for the time it waited before its handler ran; nil in process.
    package let arrived: MonotonicTime?
    private let baseLogger: Logger

    package init(requestID: UInt64, method: String, metadata: [String: String], deadline: ContinuousClock.Instant, logger: Logger,
                 arrived: MonotonicTime? = nil) {
        self.requestID = requestID
        self.method = method
        self.metadata = metadata
        self.deadline = deadline
        self.baseLogger = logger
        self.arrived = arrived
    }

    /// Metadata key of the authenticated user's id, set by the gateway.
    public static let userIDKey = "plantguide-user-id"
    /// Metadata key of the trace id carried into every log line.
    public static let traceIDKey = "plantguide-trace-id"

    /// Time left before the deadline (zero when it has passed).
    public var timeRemaining: Duration { max(.zero, ContinuousClock.now.duration(to: deadline)) }

    /// A logger whose every line carries the request id, method and trace id.
    public var logger: Logger {
        var logger = baseLogger
        logger[metadataKey: "plantguide.rpc.request_id"] = "\(requestID)"
        logger[metadataKey: "plantguide.rpc.method"] = "\(method)"
        if let trace = traceID { logger[metadataKey: "plantguide.trace_id"] = "\(trace)" }
        return logger
    }

    /// The call's trace id: the W3C `traceparent` metadata's, else `plantguide-trace-id`; nil when it has neither.
    public var traceID: String? {
        metadata["traceparent"].flatMap(TraceParent.traceID) ?? metadata[Self.traceIDKey]
    }

    /// The calling user's id from the metadata.
    /// - Throws: UNAUTHENTICATED when the call carries none.
    public func requireUserID() throws -> String {
        guard let user = metadata[Self.userIDKey], !user.isEmpty else {
            throw RPCError(.unauthenticated, "missing \(Self.userIDKey) metadata")
        }
        return user
    }
}
