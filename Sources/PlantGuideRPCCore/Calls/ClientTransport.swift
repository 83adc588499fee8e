import Foundation
import PlantGuideProtos

/// What carries a client's calls to a server and the replies back: ZeroMQ sockets (``ZeroMQTransport``) or,
/// within one process, the server's own loop (``InProcessTransport``). Everything above it is the same for both:
/// message limits, deadlines, retries, metadata and status codes.
public protocol ClientTransport: Sendable {
    /// Sends one attempt of a call (`envelope`: the serialized `RpcRequest` without id and timeout) and returns
    /// the server's response envelope.
    /// - Throws: ``RPCError`` (CANCELLED, DEADLINE_EXCEEDED, UNAVAILABLE), or ``NoReadyEndpoint`` when nothing was
    ///   sent because no endpoint could take the call.
    func send(_ envelope: [UInt8], method: String, deadline: MonotonicTime, waitForReady: Bool) async throws
        -> Plantguide_Rpc_V1_RpcResponse
    /// True once every endpoint is ready, false when `deadline` passed first.
    func waitUntilAllEndpointsReady(deadline: MonotonicTime) async -> Bool
    /// The thread that moves this transport's messages, as a task executor.
    var executor: IOThreadExecutor { get }
    /// Fails calls in flight with UNAVAILABLE and refuses later ones.
    func close()
}

/// Thrown by a ``ClientTransport`` for a call that no endpoint could take (nothing was sent), so that the client
/// can tell it from a server's UNAVAILABLE; it carries the UNAVAILABLE error to report.
public struct NoReadyEndpoint: Error {
    public let error: RPCError

    public init(error: RPCError) {
        self.error = error
    }
}
