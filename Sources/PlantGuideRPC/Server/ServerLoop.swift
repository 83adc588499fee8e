import CZeroMQ
import Foundation
import Logging
import PlantGuideProtos

/// A server's ROUTER socket and its calls, served on the process's ``IOThread``: it receives requests, starts
/// handlers as tasks (at most `maxConcurrentCalls` at once, the rest queued), enforces deadlines, and sends the
/// replies the tasks post back. Requests of in-process callers (``InProcessTransport``) come through its mailbox
/// instead and are served the same way, by the same rules; a loop started without a socket serves only those.
///
/// Everything but `mailbox` is touched only by the I/O thread.
final class ServerLoop: IOThreadParticipant, @unchecked Sendable {
    /// What other threads tell the loop.
    enum Message: Sendable {
        /// A handler finished.
        case completion(Completion)
        /// Stop taking calls, finish those in flight until the deadline, and exit.
        case drain(until: MonotonicTime)
        /// A request envelope from a caller in this process, and where its reply envelope goes.
        case local(request: [UInt8], reply: @Sendable ([UInt8]) -> Void)
    }

    /// Where a call's reply goes.
    enum ReplyPath {
        /// Back through the ROUTER socket, with the caller's routing frames.
        case socket(RoutingFrames)
        /// To a caller in this process (called on the I/O thread; it must not block).
        case local(@Sendable ([UInt8]) -> Void)
    }

    /// A finished handler's reply.
    struct Completion {
        let sequence: UInt64
        let reply: ReplyFrame
        let code: RPCError.Code
    }

    /// A call between its arrival and its reply. A class: the loop updates it in place while it sits in `calls`
    /// (a struct this size was copied in and out of the dictionary on every update, allocating each time).
    final class Call {
        let replyPath: ReplyPath
        let requestID: UInt64
        let method: String
        let arrived: MonotonicTime
        let deadline: MonotonicTime
        /// The method, looked up once on arrival; nil for an unknown method.
        let entry: MethodTable.Entry?
        var request: ReceivedRequest?
        var task: Task<Void, Never>?
        /// Whether it waited in the admission queue before it started.
        var queued = false
        /// Whether its handler runs on the I/O thread (``IOThreadWatchdog`` names it while it does).
        var onIOThread = false

        init(replyPath: ReplyPath, requestID: UInt64, method: String, arrived: MonotonicTime, deadline: MonotonicTime,
             entry: MethodTable.Entry?, request: ReceivedRequest? = nil) {
            self.replyPath = replyPath
            self.requestID = requestID
            self.method = method
            self.arrived = arrived
            self.deadline = deadline
            self.entry = entry
            self.request = request
        }
    }

    let configuration: RPCServerConfiguration
    let methods: MethodTable
    let metrics: ServerMetrics
    let logger: Logger
    let mailbox: LoopMailbox<Message>
    let thread: IOThread
    /// Set by the loop when it starts draining; read by health checks.
    let draining: DrainingFlag

    private var socket: ZMQSocket?
    private var calls: [UInt64: Call] = [:]
    private var admission: Admission<UInt64>
    /// The mailbox's messages of one turn (a buffer kept from turn to turn).
    private var messages: [Message] = []
    private var deadlines = DeadlineHeap<UInt64>()
    private var nextSequence: UInt64 = 0
    private var drainDeadline: MonotonicTime?
    private let finished: @Sendable () -> Void

    /// - Parameter finished: called on the I/O thread once the loop has drained and closed its socket.
    init(
        configuration: RPCServerConfiguration, router: RPCRouter, metrics: ServerMetrics, draining: DrainingFlag,
        logger: Logger, finished: @escaping @Sendable () -> Void
    ) throws {
        self.configuration = configuration
        methods = MethodTable(router: router)
        self.metrics = metrics
        self.draining = draining
        self.logger = logger
        admission = Admission(maxRunning: configuration.maxConcurrentCalls, maxQueued: configuration.maxQueuedCalls,
                              maxQueuedBytes: configuration.maxQueuedBytes)
        self.finished = finished
        mailbox = try LoopMailbox()
        thread = try IOThread.shared()
    }

    // MARK: Other threads

    /// Creates and binds the socket; call once, before `start()` hands it to the I/O thread. Returns the bound
    /// endpoint.
    func bind() throws -> String {
        let socket = try ZMQSocket(type: ZMQ_ROUTER)
        try socket.set(ZMQ_ROUTER_MANDATORY, 1)
        // IPv6 (dual-stack for "*") only when asked: on an IPv4 bind it would report ::ffff: mapped addresses.
        let endpoint = configuration.bindEndpoint
        if endpoint.contains("[") || endpoint.contains("*") { try socket.set(ZMQ_IPV6, 1) }
        try socket.set(ZMQ_MAXMSGSIZE, int64: Int64(configuration.effectiveTransportLimit))
        try socket.set(ZMQ_SNDHWM, configuration.highWaterMark)
        try socket.set(ZMQ_RCVHWM, configuration.highWaterMark)
        let heartbeat = Int32(configuration.heartbeatInterval.milliseconds)
        try socket.set(ZMQ_HEARTBEAT_IVL, heartbeat)
        try socket.set(ZMQ_HEARTBEAT_TIMEOUT, heartbeat * 3)
        try socket.set(ZMQ_HEARTBEAT_TTL, heartbeat * 3)
        if let curve = configuration.curve { try socket.applyCurve(curve) }
        try socket.bind(configuration.bindEndpoint)
        self.socket = socket
        return socket.lastEndpoint
    }

    /// Starts serving on the I/O thread.
    func start() {
        thread.adopt(self)
    }

    /// Called by handler tasks with their reply (dropped if the loop has stopped).
    func complete(_ completion: Completion) {
        _ = mailbox.post(.completion(completion))
    }

    /// Asks the loop to stop taking calls, finish those in flight until `deadline`, and exit.
    func drain(until deadline: MonotonicTime) {
        _ = mailbox.post(.drain(until: deadline))
    }

    /// Hands the loop a request envelope from a caller in this process; `reply` gets the reply envelope, on the
    /// I/O thread. False when the loop has stopped (`reply` is never called then).
    func serveLocal(_ request: [UInt8], reply: @escaping @Sendable ([UInt8]) -> Void) -> Bool {
        mailbox.post(.local(request: request, reply: reply))
    }

    // MARK: The I/O thread

    func turn() -> Bool {
        if let socket { receiveRequests(from: socket) }
        mailbox.takeMessages(into: &messages)
        for message in messages {
            switch message {
            case .completion(let completion): finish(completion)
            case .drain(let deadline): drainDeadline = min(drainDeadline ?? deadline, deadline)
            case .local(let request, let reply): request.withUnsafeBytes { handleFrame(replyPath: .local(reply), body: $0) }
            }
        }
        let now = MonotonicTime.now()
        expireDeadlines(now: now)
        startQueuedCalls()
        metrics.admission(running: admission.running, queued: admission.queuedCount)
        guard let drainDeadline else { return true }
        draining.set()
        return !calls.isEmpty && now < drainDeadline
    }

    func finish() {
        abandonRemainingCalls()
        try? socket?.set(ZMQ_LINGER, 1_000)  // let the last replies leave
        socket?.close()
        socket = nil
        for case .local(_, let reply) in mailbox.close().messages {
            var response = Plantguide_Rpc_V1_RpcResponse()
            response.status = RPCError.shuttingDown("the server shut down before the call was taken").wireStatus
            reply((try? response.serializedBytes()) ?? [])
        }
        finished()
    }

    var nextWakeUp: MonotonicTime? {
        guard let earliest = deadlines.earliest else { return drainDeadline }
        return drainDeadline.map { min($0, earliest) } ?? earliest
    }

    func appendSockets(to items: inout [zmq_pollitem_t]) {
        if let socket { items.append(zmq_pollitem_t(socket: socket.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)) }
    }

    var wakeDescriptor: Int32 { mailbox.wake.descriptor }

    func mailboxMayBlock() -> Bool { mailbox.prepareToSleep() }

    func mailboxAwake(signalled: Bool) { mailbox.awake(signalled: signalled) }

    private func receiveRequests(from socket: ZMQSocket) {
        for _ in 0..<IOThread.messagesPerTurn {
            let received: Bool
            do {
                received = try socket.receive { routing, body in handleFrame(replyPath: .socket(routing), body: body) } != nil
            } catch {
                logger.warning("receive failed", metadata: ["error": "\(error)"])
                received = false
            }
            if !received { return }
        }
    }

    private func handleFrame(replyPath: ReplyPath, body: UnsafeRawBufferPointer) {
        switch EnvelopeLimits.check(body) {
        case .acceptable:
            break
        case .malformed:
            metrics.malformedFrames.increment()
            logger.debug("dropped a frame that is not an RpcRequest", metadata: ["bytes": "\(body.count)"])
            return
        case .refused(let id, let error):
            let now = MonotonicTime.now()
            let call = Call(replyPath: replyPath, requestID: id, method: "", arrived: now, deadline: now, entry: nil)
            return reply(to: call, error: error)
        }
        guard let request = ReceivedRequest(body, methods: methods) else {
            metrics.malformedFrames.increment()
            logger.debug("dropped a frame that is not an RpcRequest", metadata: ["bytes": "\(body.count)"])
            return
        }
        let now = MonotonicTime.now()
        let timeout = request.timeoutMs == 0 ? configuration.defaultTimeout : .milliseconds(Int64(request.timeoutMs))
        let call = Call(
            replyPath: replyPath, requestID: request.id, method: request.method, arrived: now,
            deadline: now.advanced(by: timeout), entry: request.entry, request: request
        )
        if body.count > configuration.maxMessageSize {
            let error = RPCError(
                .resourceExhausted,
                "request of \(body.count) bytes exceeds the server's limit of \(configuration.maxMessageSize) bytes"
            ).reason(RPCErrorReason.requestTooLarge, domain: RPCErrorReason.transportDomain, metadata: ["part": "message"])
            return reply(to: call, error: error)
        }
        if let probe = request.entry?.probe {
            return answer(call, payload: request.payload, with: probe)
        }
        if request.entry?.route == nil {
            return reply(to: call, error: RPCError.unknownMethod(request.method))
        }
        if draining.isSet {
            return reply(to: call, error: .shuttingDown("the server is shutting down"))
        }
        let sequence = nextSequence
        nextSequence += 1
        switch admission.admit(sequence, bytes: request.payload.count) {
        case .start:
            calls[sequence] = call
            start(sequence)
        case .queue:
            call.queued = true
            calls[sequence] = call
        case .refuse:
            let error = RPCError(.resourceExhausted, "the server's queue is full; retry later")
                .reason(RPCErrorReason.serverQueueFull, domain: RPCErrorReason.transportDomain)
                .retry(after: .milliseconds(100))
            return reply(to: call, error: error)
        }
        deadlines.compact(liveCount: calls.count) { calls[$0] != nil }
        deadlines.insert(call.deadline, sequence)
    }

    private func start(_ sequence: UInt64) {
        guard let call = calls[sequence], let request = call.request, let route = call.entry?.route else {
            return admission.finished()
        }
        let handler = route.handler
        call.request = nil
        let context = RPCServerContext(
            requestID: request.id, method: request.method, metadata: request.metadata,
            deadline: ContinuousClock.now.advanced(by: MonotonicTime.now().duration(until: call.deadline)),
            logger: logger, arrived: call.arrived
        )
        let onIOThread = (route.execution ?? configuration.handlerExecution) == .ioThread
        if onIOThread {
            call.onIOThread = true
            IOThreadWatchdog.began(call.method)
        }
        let payload = request.payload
        let requestID = request.id
        // Only what the handler's await needs lives in the task's frame; the reply is made in a synchronous
        // function, so that the task allocates fewer slabs for its frames (Scripts/bench allocs).
        call.task = Task(executorPreference: onIOThread ? thread.executor : nil) { [self] in
            let outcome: Result<RPCServerResponse, any Error>
            do {
                outcome = .success(try await handler(payload, context))
            } catch {
                outcome = .failure(error)
            }
            complete(completion(of: sequence, requestID: requestID, outcome, context: context))
        }
    }

    /// The reply of a call whose handler finished with `outcome`, logged at debug level (the access log:
    /// one line a call, with its trace id).
    private func completion(
        of sequence: UInt64, requestID: UInt64, _ outcome: Result<RPCServerResponse, any Error>, context: RPCServerContext
    ) -> Completion {
        var response = Plantguide_Rpc_V1_RpcResponse()
        response.id = requestID
        var code = RPCError.Code.ok
        switch outcome {
        case .success(let answer):
            response.payload = answer.payload
            response.trailingMetadata = answer.trailingMetadata
        case .failure(let error):
            let mapped = RPCError(mapping: error)
            if mapped.code == .unknown || mapped.code == .internal {
                context.logger.error("handler failed", metadata: ["error": "\(error)"])
            }
            code = mapped.code
            response.status = mapped.wireStatus
            response.trailingMetadata = mapped.trailingMetadata
        }
        if logger.logLevel <= .debug, let arrived = context.arrived {
            context.logger.debug("answered", metadata: [
                "plantguide.rpc.code": "\(code.name)",
                "plantguide.rpc.duration_ms": "\(arrived.duration(until: .now()).fractionalMilliseconds)",
            ])
        }
        return Completion(sequence: sequence, reply: Self.frame(of: response), code: code)
    }

    /// Answers a probe (health, metrics) right here on the I/O thread, ahead of admission: a full queue or busy
    /// handlers never fail or delay it.
    private func answer(_ call: Call, payload: Data, with probe: RPCRouter.Probe) {
        var response = Plantguide_Rpc_V1_RpcResponse()
        response.id = call.requestID
        var code = RPCError.Code.ok
        do {
            response.payload = try probe(payload)
        } catch {
            let mapped = RPCError(mapping: error)
            code = mapped.code
            response.status = mapped.wireStatus
        }
        send(Self.frame(of: response), to: call)
        record(call, code: code)
    }

    private func startQueuedCalls() {
        while let sequence = admission.next() { start(sequence) }
    }

    private func finish(_ completion: Completion) {
        guard let call = calls.removeValue(forKey: completion.sequence) else { return }  // timed out already
        if call.onIOThread { IOThreadWatchdog.ended(call.method) }
        admission.finished()
        send(completion.reply, to: call)
        record(call, code: completion.code)
    }

    private func expireDeadlines(now: MonotonicTime) {
        while let sequence = deadlines.popExpired(now: now) {
            guard let call = calls.removeValue(forKey: sequence) else { continue }
            if call.onIOThread { IOThreadWatchdog.ended(call.method) }
            if let task = call.task {
                task.cancel()
                admission.finished()
            } else if call.queued, let request = call.request {
                admission.withdraw(sequence, bytes: request.payload.count)
            }
            reply(to: call, error: RPCError(.deadlineExceeded, "deadline exceeded on the server"))
        }
    }

    private func abandonRemainingCalls() {
        for (_, call) in calls {
            if call.onIOThread { IOThreadWatchdog.ended(call.method) }
            call.task?.cancel()
            reply(to: call, error: .shuttingDown("the server shut down before the call finished"))
        }
        calls.removeAll()
    }

    private func reply(to call: Call, error: RPCError) {
        var response = Plantguide_Rpc_V1_RpcResponse()
        response.id = call.requestID
        response.status = error.wireStatus
        send(Self.frame(of: response), to: call)
        record(call, code: error.code)
    }

    /// Counts the answered `call` under its method, or under "unknown" for a method the server does not have
    /// (a caller's made-up names must not each make a metric).
    private func record(_ call: Call, code: RPCError.Code) {
        guard let entry = call.entry else { return metrics.record(method: "unknown", code: code, since: call.arrived) }
        let method = entry.metrics ?? metrics.method(named: entry.path)
        entry.metrics = method
        metrics.record(method, code: code, since: call.arrived)
    }

    /// `response`'s frame: written in place when it is a plain OK answer, encoded otherwise.
    private static func frame(of response: Plantguide_Rpc_V1_RpcResponse) -> ReplyFrame {
        if !response.hasStatus && response.trailingMetadata.isEmpty && response.unknownFields.data.isEmpty {
            return .ok(id: response.id, payload: response.payload)
        }
        return .encoded((try? response.serializedBytes()) ?? [])
    }

    private func send(_ reply: ReplyFrame, to call: Call) {
        let routing: RoutingFrames
        switch call.replyPath {
        case .local(let deliver): return deliver(reply.bytes)
        case .socket(let frames): routing = frames
        }
        guard let socket else { return }
        var result = ZMQSocket.SendResult.sent
        routing.forEach { frame in
            result = socket.send(frame, more: true)
            if case .sent = result { return true }
            return false
        }
        if case .sent = result {
            result = socket.send(size: reply.size) { reply.write(into: $0) }
        }
        switch result {
        case .sent:
            return
        case .unroutable:
            logger.debug("client left before its reply", metadata: ["plantguide.rpc.request_id": "\(call.requestID)"])
        case .wouldBlock:
            logger.warning("reply dropped: client's queue is full", metadata: ["plantguide.rpc.request_id": "\(call.requestID)"])
        case .failed(let error):
            logger.warning("reply failed", metadata: ["error": "\(error)"])
        }
        metrics.droppedReplies.increment()
    }
}
