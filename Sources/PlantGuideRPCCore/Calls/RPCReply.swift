/// A call's answer: the response message and the server's trailing metadata (keys lower-case; a traced call's
/// `traceresponse` names its trace, for a bug report or a trace viewer).
public struct RPCReply<Message> {
    public var message: Message
    public var trailingMetadata: [String: String]

    public init(message: Message, trailingMetadata: [String: String] = [:]) {
        self.message = message
        self.trailingMetadata = trailingMetadata
    }

    /// The trace id of the answer's `traceresponse`; nil when the server did not trace the call.
    public var traceID: String? {
        trailingMetadata[TraceParent.responseKey].flatMap(TraceParent.traceID)
    }
}

extension RPCReply: Sendable where Message: Sendable {}
