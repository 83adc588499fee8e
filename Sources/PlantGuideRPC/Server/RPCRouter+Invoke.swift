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
    /// of hostile input, which need every method's handling without the socket in between.
    public func invoke(
        _ path: String, payload: Data, metadata: [String: String] = [:], timeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "plantguide.rpc.invoke")
    ) async -> Outcome {
        let context = RPCServerContext(
            requestID: 1, method: path, metadata: metadata, deadline: .now + timeout, logger: logger)
        let run: ErasedHandler
        if let handler = handler(for: path) {
            run = handler
        } else if let probe = probe(for: path) {
            run = { payload, _ in try probe(payload) }
        } else {
            return Outcome(payload: nil, error: RPCError.unknownMethod(path))
        }
        do {
            return Outcome(payload: try await run(payload, context), error: nil)
        } catch {
            return Outcome(payload: nil, error: RPCError(mapping: error))
        }
    }
}
