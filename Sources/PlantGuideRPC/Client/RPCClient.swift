import Foundation
import Logging
import PlantGuideProtos
import SwiftProtobuf

/// A client of PlantGuide services: async calls over ZeroMQ, many in flight over each connection, spread over
/// every endpoint of the target by fewest outstanding calls, with deadlines and retries as gRPC does them.
///
/// ```swift
/// let client = try RPCClient(target: "tcp://127.0.0.1:7003")
/// let reply = try await client.call(
///     Plantguide_Collection_V1_CollectionService.getPlant, .with { $0.id = "p1" },
///     options: .init(timeout: .seconds(2), metadata: ["plantguide-user-id": "u1"]))
/// ```
///
/// `RPCClient(inProcess: server)` calls a server of the same process with no socket, by the same rules.
///
/// A call that fails with UNAVAILABLE is retried, with jittered exponential back-off inside its deadline, when
/// its method is idempotent or it carries an idempotency key. Errors are ``RPCError``s: DEADLINE_EXCEEDED when
/// the deadline passes, UNAVAILABLE when no endpoint is reachable, CANCELLED when the calling task is cancelled,
/// or the status the server answered.
public final class RPCClient: Sendable {
    public let target: RPCTarget
    public let configuration: RPCClientConfiguration
    private let transport: any ClientTransport
    /// Every call through the interceptors, then the transport (with retries).
    private let send: RPCClientCall.Next

    /// What a client's calls pass through when it is given nothing else: tracing.
    public static let defaultInterceptors: [any RPCClientInterceptor] = [ClientTracingInterceptor()]

    /// Connects to `target` (see ``RPCTarget`` for the forms). Connection happens in the background: the first
    /// calls wait for it (within their deadline).
    /// - Throws: ``RPCError`` with INVALID_ARGUMENT when the target does not parse.
    /// - Parameter interceptors: what every call passes through, the first outermost (see ``RPCClientInterceptor``).
    public convenience init(
        target: String, configuration: RPCClientConfiguration = .init(),
        interceptors: [any RPCClientInterceptor] = RPCClient.defaultInterceptors, logger: Logger = Logger(label: "plantguide.rpc.client")
    ) throws {
        try self.init(target: RPCTarget(parsing: target), configuration: configuration, interceptors: interceptors, logger: logger)
    }

    public convenience init(target: RPCTarget, configuration: RPCClientConfiguration = .init(),
                            interceptors: [any RPCClientInterceptor] = RPCClient.defaultInterceptors,
                            logger: Logger = Logger(label: "plantguide.rpc.client")) throws {
        self.init(target: target, transport: try ZeroMQTransport(target: target, configuration: configuration, logger: logger),
                  configuration: configuration, interceptors: interceptors)
    }

    /// Calls `server`, started in this process (``RPCServer/start()`` or ``RPCServer/startInProcess()``), with no
    /// socket: its admission, deadlines, limits and status codes apply as over ZeroMQ.
    public convenience init(inProcess server: RPCServer, configuration: RPCClientConfiguration = .init(),
                            interceptors: [any RPCClientInterceptor] = RPCClient.defaultInterceptors) {
        self.init(target: .endpoints(["in-process"]), transport: InProcessTransport(server: server), configuration: configuration,
                  interceptors: interceptors)
    }

    /// A client over any transport: the rules above it (limits, deadlines, retries, interceptors) are the same.
    public init(target: RPCTarget, transport: any ClientTransport, configuration: RPCClientConfiguration,
                interceptors: [any RPCClientInterceptor]) {
        self.target = target
        self.configuration = configuration
        self.transport = transport
        send = interceptors.chained { [transport, configuration] call in
            try await Self.call(call, over: transport, configuration: configuration)
        }
    }

    deinit { close() }

    /// The client's I/O thread as a task executor. A caller that makes many small calls in a loop (a load
    /// generator, a gateway fanning out) can run there to save two thread hops per call:
    /// `group.addTask(executorPreference: client.executor) { … }`. Never block or compute for long on it.
    public var executor: IOThreadExecutor { transport.executor }

    /// Fails calls in flight with UNAVAILABLE and closes the sockets. Later calls fail with UNAVAILABLE.
    public func close() {
        transport.close()
    }

    /// Waits until a connection to every endpoint of the target is ready, for a process that wants its load
    /// spread from the first call (calls made earlier go to whichever endpoints are ready).
    /// - Returns: false when `timeout` passed first.
    public func waitUntilAllEndpointsReady(timeout: Duration) async -> Bool {
        await transport.waitUntilAllEndpointsReady(deadline: MonotonicTime.now().advanced(by: timeout))
    }

    /// Calls `method` with `request`.
    /// - Throws: ``RPCError``.
    public func call<Request, Response>(
        _ method: RPCMethod<Request, Response>, _ request: Request, options: RPCCallOptions = .init()
    ) async throws -> Response {
        try await reply(method, request, options: options).message
    }

    /// Calls `method` with `request`; returns the response with the answer's trailing metadata (a traced call's
    /// `traceresponse`, which names the trace to quote in a bug report).
    /// - Throws: ``RPCError``, whose `trailingMetadata` holds a failed answer's.
    public func reply<Request, Response>(
        _ method: RPCMethod<Request, Response>, _ request: Request, options: RPCCallOptions = .init()
    ) async throws -> RPCReply<Response> {
        let payload: Data
        do {
            payload = try request.serializedBytes()
        } catch {
            throw RPCError.invalidArgument("payload", .invalidFormat, "cannot serialize \(Request.protoMessageName): \(error)")
        }
        let reply = try await reply(path: method.path, payload: payload, isIdempotent: method.isIdempotent, options: options)
        do {
            return RPCReply(message: try Response(serializedBytes: reply.message), trailingMetadata: reply.trailingMetadata)
        } catch {
            throw RPCError(.internal, "reply is not a valid \(Response.protoMessageName): \(error)")
        }
    }

    /// Calls a method by path with an already serialized request; returns the serialized response.
    /// - Throws: ``RPCError``.
    public func call(path: String, payload: Data, isIdempotent: Bool, options: RPCCallOptions = .init()) async throws -> Data {
        try await reply(path: path, payload: payload, isIdempotent: isIdempotent, options: options).message
    }

    /// Calls a method by path with an already serialized request; returns the serialized response with the
    /// answer's trailing metadata, through the client's interceptors.
    /// - Throws: ``RPCError``, whose `trailingMetadata` holds a failed answer's.
    public func reply(path: String, payload: Data, isIdempotent: Bool, options: RPCCallOptions = .init()) async throws -> RPCReply<Data> {
        try await send(RPCClientCall(path: path, payload: payload, isIdempotent: isIdempotent, options: options))
    }

    /// One call, its retries included, over `transport`.
    private static func call(_ call: RPCClientCall, over transport: any ClientTransport,
                             configuration: RPCClientConfiguration) async throws -> RPCReply<Data> {
        let (path, options) = (call.path, call.options)
        let deadline = MonotonicTime.now().advanced(by: options.timeout ?? configuration.defaultTimeout)
        var envelope = Plantguide_Rpc_V1_RpcRequest()
        envelope.method = path
        envelope.metadata = options.metadata
        envelope.payload = call.payload
        let bytes: [UInt8] = try envelope.serializedBytes()
        guard bytes.count <= configuration.maxMessageSize else {
            throw RPCError(.resourceExhausted,
                "request of \(bytes.count) bytes exceeds the client's limit of \(configuration.maxMessageSize) bytes")
                .reason(RPCErrorReason.requestTooLarge, domain: RPCErrorReason.transportDomain, metadata: ["part": "message"])
        }
        let retryable = call.isIdempotent || options.metadata[RPCCallOptions.idempotencyKey] != nil
        var backoff = RetryBackoff(initial: configuration.initialBackoff, maximum: configuration.maxBackoff)
        var attempt = 1
        while true {
            let response: Plantguide_Rpc_V1_RpcResponse
            do {
                response = try await transport.send(bytes, method: path, deadline: deadline, waitForReady: options.waitForReady)
            } catch let unreachable as NoReadyEndpoint {
                guard configuration.retriesWhileUnreachable else { throw unreachable.error }
                try await pauseBeforeRetry(after: unreachable.error, retryable: retryable, attempt: &attempt, backoff: &backoff,
                                           deadline: deadline, configuration: configuration)
                continue
            } catch let error as RPCError where error.code == .unavailable {
                try await pauseBeforeRetry(after: error, retryable: retryable, attempt: &attempt, backoff: &backoff, deadline: deadline,
                                           configuration: configuration)
                continue
            }
            guard response.hasStatus, response.status.code != .ok else {
                return RPCReply(message: response.payload, trailingMetadata: response.trailingMetadata)
            }
            var error = RPCError(wireStatus: response.status)
            error.trailingMetadata = response.trailingMetadata
            guard error.code == .unavailable else { throw error }
            try await pauseBeforeRetry(after: error, retryable: retryable, attempt: &attempt, backoff: &backoff, deadline: deadline,
                                           configuration: configuration)
        }

    }

    private static func pauseBeforeRetry(
        after error: RPCError, retryable: Bool, attempt: inout Int, backoff: inout RetryBackoff, deadline: MonotonicTime,
        configuration: RPCClientConfiguration
    ) async throws {
        guard retryable, attempt < configuration.maxAttempts else { throw error }
        let pause = backoff.next()
        let now = MonotonicTime.now()
        guard now.advanced(by: pause) < deadline else { throw error }
        attempt += 1
        try? await Task.sleep(for: pause)
        if Task.isCancelled { throw RPCError(.cancelled, "the call was cancelled") }
    }
}
