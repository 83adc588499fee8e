import Foundation
import PlantGuideProtos
import Synchronization

/// Calls to a server in the same process, with no socket: each request envelope goes into the server loop's
/// mailbox and is served by the same rules as one from the network (envelope limits, health ahead of admission,
/// the admission queue, the server's deadline, draining), and the reply envelope comes back the same way. For
/// tests and compositions where the network is not the subject. Cancelling the calling task ends the call with
/// CANCELLED at once, as over ZeroMQ (the handler runs on until the server's deadline for it).
final class InProcessTransport: ClientTransport {
    private let server: RPCServer
    private let closed = Atomic<Bool>(false)

    init(server: RPCServer) {
        self.server = server
    }

    /// The RPC I/O thread's executor; before any server runs, one that hands its jobs to the global pool.
    var executor: IOThreadExecutor { IOThread.runningExecutor ?? IOThreadExecutor() }

    func close() { closed.store(true, ordering: .relaxed) }

    func waitUntilAllEndpointsReady(deadline: MonotonicTime) async -> Bool { server.endpoint != nil }

    func send(_ envelope: [UInt8], method: String, deadline: MonotonicTime, waitForReady: Bool) async throws
        -> Plantguide_Rpc_V1_RpcResponse
    {
        if Task.isCancelled { throw RPCError(.cancelled, "the call was cancelled") }
        guard !closed.load(ordering: .relaxed) else { throw NoReadyEndpoint(error: RPCError(.unavailable, "the client is closed")) }
        let now = MonotonicTime.now()
        guard now < deadline else { throw RPCError(.deadlineExceeded, "deadline exceeded before the call was sent (in process)") }
        let frame = Self.frame(envelope, timeoutMs: max(1, now.milliseconds(until: deadline)))
        let reply = LocalReply()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                reply.attach(continuation)
                let taken = server.serveLocal(frame) { bytes in
                    reply.finish(Result {
                        do {
                            return try Plantguide_Rpc_V1_RpcResponse(serializedBytes: bytes)
                        } catch {
                            throw RPCError(.internal, "the server's reply envelope does not decode: \(error)")
                        }
                    })
                }
                if !taken { reply.finish(.failure(NoReadyEndpoint(error: RPCError(.unavailable, "the server is not running")))) }
            }
        } onCancel: {
            reply.finish(.failure(RPCError(.cancelled, "the call was cancelled")))
        }
    }

    /// The wire frame of an envelope, as ``ClientLoop`` writes it: id 1 (one call per reply path) and the timeout.
    private static func frame(_ envelope: [UInt8], timeoutMs: UInt64) -> [UInt8] {
        [UInt8](writing: RequestFrame.size(id: 1, envelope: envelope, timeoutMs: timeoutMs)) {
            RequestFrame.write(id: 1, envelope: envelope, timeoutMs: timeoutMs, into: $0)
        }
    }
}

/// One in-process call's single resumption, whichever comes first: the reply, or the caller's cancellation
/// (which may even come before the continuation is attached).
private final class LocalReply: Sendable {
    typealias Reply = Result<Plantguide_Rpc_V1_RpcResponse, any Error>
    typealias Waiter = CheckedContinuation<Plantguide_Rpc_V1_RpcResponse, any Error>

    private enum State {
        case waiting
        case attached(Waiter)
        case finished(Reply?)
    }

    private let state = Mutex(State.waiting)

    func attach(_ continuation: Waiter) {
        let early: Reply? = state.withLock { state in
            switch state {
            case .waiting:
                state = .attached(continuation)
                return nil
            case .finished(let result):
                state = .finished(nil)
                return result
            case .attached:
                preconditionFailure("attached twice")
            }
        }
        if let early { continuation.resume(with: early) }
    }

    func finish(_ result: Reply) {
        let continuation: Waiter? = state.withLock { state in
            switch state {
            case .waiting:
                state = .finished(result)
                return nil
            case .attached(let continuation):
                state = .finished(nil)
                return continuation
            case .finished:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}
