/// What the HTTP front knows of the request a handler serves beyond its message, set around the handler it invokes
/// (a task-local, so that no RPC caller can claim it in metadata).
struct HTTPRequestFacts: Sendable {
    /// The client's address as failed sign-ins count against it (``ClientAddresses/client(peer:forwardedFor:)``).
    var clientAddress: String?
    /// Where the request was sent ("localhost:7080"), lower-cased: the site a passkey ceremony runs on when the
    /// gateway has no public origin.
    var authority: String?

    /// The request being served; nil for calls over RPC.
    @TaskLocal static var current: HTTPRequestFacts?
}
