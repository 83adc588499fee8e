import Foundation
import PlantGuideProtos

/// One attempt of a call, from submission to its single resumption. After submission only the RPC I/O thread
/// touches it.
final class ClientCall: @unchecked Sendable {
    /// The serialized `RpcRequest` without its id and timeout, which the loop adds when it sends.
    let envelope: [UInt8]
    let method: String
    let deadline: MonotonicTime
    let waitForReady: Bool
    private var continuation: CheckedContinuation<Plantguide_Rpc_V1_RpcResponse, any Error>?
    var wireID: UInt64 = 0
    var endpoint: ClientEndpoint?
    var cancelRequested = false

    init(envelope: [UInt8], method: String, deadline: MonotonicTime, waitForReady: Bool) {
        self.envelope = envelope
        self.method = method
        self.deadline = deadline
        self.waitForReady = waitForReady
    }

    /// Set once, by the caller, before the call is submitted to the loop.
    func attach(_ continuation: CheckedContinuation<Plantguide_Rpc_V1_RpcResponse, any Error>) {
        self.continuation = continuation
    }

    /// True until the call is answered or failed.
    var isActive: Bool { continuation != nil }

    func succeed(_ response: Plantguide_Rpc_V1_RpcResponse) {
        continuation?.resume(returning: response)
        continuation = nil
    }

    func fail(_ error: RPCError) {
        continuation?.resume(throwing: error)
        continuation = nil
    }

    /// Fails the call because no endpoint of the target is ready and none is about to be, so that the client
    /// can tell this (nothing was sent) from a server's UNAVAILABLE.
    func failUnreachable(_ error: RPCError) {
        continuation?.resume(throwing: NoReadyEndpoint(error: error))
        continuation = nil
    }
}
