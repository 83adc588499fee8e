import Foundation
import Logging

extension RPCRouter {
    /// What a call answered when invoked in-process: the response payload, or the status a caller would see.
    public struct Outcome: Sendable {
        public var payload: Data?
        public var error: RPCError?
    }

    /// Calls a method in this process as the server would: the payload decoded, the handler run, and what it
    /// throws mapped to the status a caller sees (an unknown method is UNIMPLEMENTED). For fuzzing and for tests
    /// of hostile input, which need every method's handling without the socket in between; and for a second front
    /// (HTTP) over the same handlers.
    /// - Parameter executor: where the handler runs; the caller's executor when nil. A front whose handlers only
    ///   await RPC calls passes the RPC I/O thread's (``RPCClient/executor``), so that their calls and replies
    ///   need no thread hand-off.
    public func invoke(
        _ path: String, payload: Data, metadata: [String: String] = [:], timeout: Duration = .seconds(30),
        on executor: (any TaskExecutor)? = nil, logger: Logger = Logger(label: "plantguide.rpc.invoke")
    ) async -> Outcome {
        let context = RPCServerContext(
            requestID: 1, method: path, metadata: metadata, deadline: .now + timeout, logger: logger)
        let run: ErasedHandler
        if let route = route(for: path) {
            run = route.handler
        } else if let probe = probe(for: path) {
            run = { payload, _ in RPCServerResponse(payload: try probe(payload)) }
        } else {
            return Outcome(payload: nil, error: RPCError.unknownMethod(path))
        }
        return await withTaskExecutorPreference(executor) {
            do {
                return Outcome(payload: try await run(payload, context).payload, error: nil)
            } catch {
                return Outcome(payload: nil, error: RPCError(mapping: error))
            }
        }
    }
}
