import PlantGuideProtos

/// Per-call settings.
public struct RPCCallOptions: Sendable {
    /// The call's deadline, relative; nil for the client's default.
    public var timeout: Duration?
    /// Metadata sent with the call (lower-case keys), e.g. ["plantguide-user-id": "u1"].
    public var metadata: [String: String]
    /// Wait for an endpoint to become ready (within the deadline) instead of failing at once with UNAVAILABLE
    /// when none is connected, as gRPC's wait-for-ready.
    public var waitForReady: Bool

    public init(timeout: Duration? = nil, metadata: [String: String] = [:], waitForReady: Bool = false) {
        self.timeout = timeout
        self.metadata = metadata
        self.waitForReady = waitForReady
    }

    /// Metadata key that makes a call to a non-idempotent method safe to retry.
    public static let idempotencyKey = "idempotency-key"
}
