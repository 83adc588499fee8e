import CZeroMQ
import Foundation
import Logging
import PlantGuideProtos

/// A client's sockets (one DEALER per endpoint, and their monitors), served on the process's ``IOThread``.
/// Callers hand it calls through `submit`; it sends each to the ready endpoint with the fewest outstanding calls,
/// matches replies by id, and fails calls on deadline, cancellation, or the loss of their endpoint.
final class ClientLoop: IOThreadParticipant, @unchecked Sendable {
    enum Command: Sendable {
        case submit(ClientCall)
        case cancel(ClientCall)
        case endpoints(Result<[String], RPCError>)
        /// Resume with true once every endpoint is ready, or false at the deadline.
        case whenAllReady(CheckedContinuation<Bool, Never>, MonotonicTime)
    }

    let target: RPCTarget
    let configuration: RPCClientConfiguration
    let logger: Logger
    let mailbox: LoopMailbox<Command>
    let thread: IOThread

    // The I/O thread only:
    private var endpoints: [ClientEndpoint] = []
    private var pending: [UInt64: ClientCall] = [:]
    private var waiting: [ClientCall] = []
    private var deadlines = DeadlineHeap<ClientCall>()
    private var readinessWaiters: [(continuation: CheckedContinuation<Bool, Never>, deadline: MonotonicTime)] = []
    private var nextID: UInt64 = 1
    /// The mailbox's commands of one turn (a buffer kept from turn to turn).
    private var commands: [Command] = []
    private var started = false
    private var balancer = LeastOutstanding()
    /// Nil until a DNS target is first resolved; its failure when resolution fails.
    private var resolution: Result<Void, RPCError>?

    init(target: RPCTarget, configuration: RPCClientConfiguration, logger: Logger) throws {
        self.target = target
        self.configuration = configuration
        self.logger = logger
        mailbox = try LoopMailbox()
        thread = try IOThread.shared()
    }

    // MARK: Other threads

    /// Starts serving on the I/O thread.
    func start() {
        thread.adopt(self)
    }

    func submit(_ command: Command) {
        if !mailbox.post(command) { Self.refuse(command) }
    }

    /// Stops the loop; what was still queued is refused here, the rest on the I/O thread.
    func close() {
        for command in mailbox.close().messages { Self.refuse(command) }
    }

    private static func refuse(_ command: Command) {
        switch command {
        case .submit(let call): call.fail(RPCError(.unavailable, "the client is closed"))
        case .whenAllReady(let continuation, _): continuation.resume(returning: false)
        case .cancel, .endpoints: break
        }
    }

    // MARK: The I/O thread

    func turn() -> Bool {
        guard !mailbox.isClosed else { return false }
        if !started {
            started = true
            if case .endpoints(let list) = target { reconcile(with: .success(list)) }
        }
        for endpoint in endpoints { receiveReplies(from: endpoint) }
        mailbox.takeMessages(into: &commands)
        for command in commands { handle(command) }
        applyConnectionEvents()
        let now = MonotonicTime.now()
        expireDeadlines(now: now)
        resolveReadinessWaiters(now: now)
        return true
    }

    var nextWakeUp: MonotonicTime? {
        var wakeUp = deadlines.earliest
        for waiter in readinessWaiters { wakeUp = min(wakeUp ?? waiter.deadline, waiter.deadline) }
        return wakeUp
    }

    func appendSockets(to items: inout [zmq_pollitem_t]) {
        for endpoint in endpoints {
            items.append(zmq_pollitem_t(socket: endpoint.socket.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0))
            items.append(zmq_pollitem_t(socket: endpoint.monitor.socket.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0))
        }
    }

    var wakeDescriptor: Int32 { mailbox.wake.descriptor }

    func mailboxMayBlock() -> Bool { mailbox.prepareToSleep() }

    func mailboxAwake(signalled: Bool) { mailbox.awake(signalled: signalled) }

    private func handle(_ command: Command) {
        switch command {
        case .submit(let call):
            if call.cancelRequested { return call.fail(RPCError(.cancelled, "the call was cancelled")) }
            deadlines.compact(liveCount: pending.count + waiting.count) { $0.isActive }
            deadlines.insert(call.deadline, call)
            dispatch(call)
        case .cancel(let call):
            call.cancelRequested = true
            // Not submitted yet: its submit, which follows, sees the flag and fails it.
            guard call.isActive, call.wireID != 0 || waiting.contains(where: { $0 === call }) else { return }
            forget(call)
            call.fail(RPCError(.cancelled, "the call was cancelled"))
        case .endpoints(let result):
            reconcile(with: result)
        case .whenAllReady(let continuation, let deadline):
            readinessWaiters.append((continuation, deadline))
        }
    }

    private func resolveReadinessWaiters(now: MonotonicTime) {
        guard !readinessWaiters.isEmpty else { return }
        let allReady = !endpoints.isEmpty && endpoints.allSatisfy { $0.state == .ready }
        readinessWaiters.removeAll { waiter in
            guard allReady || now >= waiter.deadline else { return false }
            waiter.continuation.resume(returning: allReady)
            return true
        }
    }

    /// Sends `call` to the least busy ready endpoint, or parks it until one is ready, or fails it.
    private func dispatch(_ call: ClientCall) {
        let now = MonotonicTime.now()
        guard now < call.deadline else {
            return call.fail(RPCError(.deadlineExceeded, "deadline exceeded before the call was sent (\(endpointStates))"))
        }
        for index in balancer.order(outstanding: endpoints.map { $0.state == .ready ? $0.outstanding : nil }) {
            if send(call, to: endpoints[index], now: now) { return }
        }
        if call.waitForReady || mayBecomeReadySoon {
            waiting.append(call)
        } else {
            call.failUnreachable(unavailableError)
        }
    }

    private func send(_ call: ClientCall, to endpoint: ClientEndpoint, now: MonotonicTime) -> Bool {
        call.wireID = nextID
        nextID &+= 1
        let timeoutMs = max(1, now.milliseconds(until: call.deadline))
        let size = RequestFrame.size(id: call.wireID, envelope: call.envelope, timeoutMs: timeoutMs)
        let result = endpoint.socket.send(size: size) { buffer in
            RequestFrame.write(id: call.wireID, envelope: call.envelope, timeoutMs: timeoutMs, into: buffer)
        }
        guard case .sent = result else {
            call.wireID = 0
            if case .failed(let error) = result { endpoint.lastProblem = "\(error)" }
            return false
        }
        call.endpoint = endpoint
        endpoint.outstanding += 1
        pending[call.wireID] = call
        return true
    }

    /// True while some endpoint is on its first connection attempt or a DNS target is not resolved yet.
    private var mayBecomeReadySoon: Bool {
        if case .dns = target, resolution == nil { return true }
        return endpoints.contains { $0.state == .connecting }
    }

    /// Each endpoint's state, calls outstanding and last problem, for errors that must say why no endpoint took a call.
    private var endpointStates: String {
        endpoints.isEmpty ? "no endpoint" : endpoints.map { "\($0.address): \($0.state), \($0.outstanding) outstanding, \($0.lastProblem)" }
            .joined(separator: "; ")
    }

    private var unavailableError: RPCError {
        if case .failure(let error)? = resolution { return error }
        let problems = endpoints.map(\.lastProblem)
        let detail = problems.isEmpty ? "no endpoint" : problems.joined(separator: "; ")
        return RPCError(.unavailable, "\(target) is unavailable: \(detail)")
    }

    private func receiveReplies(from endpoint: ClientEndpoint) {
        for _ in 0..<IOThread.messagesPerTurn {
            let reply: Plantguide_Rpc_V1_RpcResponse??
            do {
                reply = try endpoint.socket.receive { _, body in ReceivedReply.read(body) }
            } catch {
                logger.debug("receive failed", metadata: ["error": "\(error)"])
                return
            }
            guard let received = reply else { return }  // nothing waiting
            guard let response = received, let call = pending.removeValue(forKey: response.id) else { continue }
            endpoint.outstanding -= 1
            call.succeed(response)
        }
    }

    private func applyConnectionEvents() {
        var anyReady = false
        for endpoint in endpoints {
            let (becameReady, lost) = endpoint.applyMonitorEvents()
            anyReady = anyReady || becameReady
            if lost { failOutstanding(on: endpoint, RPCError(.unavailable, "connection to \(endpoint.address) lost")) }
        }
        if anyReady || !waiting.isEmpty { retryWaiting() }
    }

    private func retryWaiting() {
        guard !waiting.isEmpty else { return }
        let parked = waiting
        waiting.removeAll()
        for call in parked where call.isActive { dispatch(call) }
    }

    private func failOutstanding(on endpoint: ClientEndpoint, _ error: RPCError) {
        for (id, call) in pending where call.endpoint === endpoint {
            pending.removeValue(forKey: id)
            call.fail(error)
        }
        endpoint.outstanding = 0
    }

    private func expireDeadlines(now: MonotonicTime) {
        while let call = deadlines.popExpired(now: now) {
            guard call.isActive else { continue }
            let wasSent = call.wireID != 0
            forget(call)
            call.fail(wasSent
                ? RPCError(.deadlineExceeded, "deadline exceeded waiting for \(call.method)")
                : RPCError(.deadlineExceeded, "deadline exceeded before a connection to \(target) was ready (\(endpointStates))"))
        }
    }

    private func forget(_ call: ClientCall) {
        if call.wireID != 0, pending.removeValue(forKey: call.wireID) != nil {
            call.endpoint?.outstanding -= 1
        }
        waiting.removeAll { $0 === call }
    }

    /// Opens sockets for new addresses and closes those of vanished ones (their calls fail UNAVAILABLE).
    private func reconcile(with result: Result<[String], RPCError>) {
        switch result {
        case .failure(let error):
            resolution = .failure(error)
            if endpoints.isEmpty { failWaitingIfHopeless() }
            logger.warning("cannot resolve target", metadata: ["target": "\(target)", "error": "\(error.message)"])
        case .success(let addresses):
            resolution = .success(())
            for endpoint in endpoints where !addresses.contains(endpoint.address) {
                failOutstanding(on: endpoint, RPCError(.unavailable, "\(endpoint.address) left \(target)"))
                endpoint.close()
            }
            endpoints.removeAll { !addresses.contains($0.address) }
            for address in addresses where !endpoints.contains(where: { $0.address == address }) {
                do {
                    endpoints.append(try ClientEndpoint(address: address, configuration: configuration))
                } catch {
                    logger.error("cannot open a socket", metadata: ["endpoint": "\(address)", "error": "\(error)"])
                }
            }
            retryWaiting()
        }
    }

    private func failWaitingIfHopeless() {
        let parked = waiting
        waiting.removeAll()
        for call in parked where call.isActive {
            if call.waitForReady { waiting.append(call) } else { call.failUnreachable(unavailableError) }
        }
    }

    func finish() {
        let closedError = RPCError(.unavailable, "the client is closed")
        for call in pending.values { call.fail(closedError) }
        for call in waiting { call.fail(closedError) }
        pending.removeAll()
        waiting.removeAll()
        for endpoint in endpoints { endpoint.close() }
        endpoints.removeAll()
        for waiter in readinessWaiters { waiter.continuation.resume(returning: false) }
        readinessWaiters.removeAll()
    }
}
