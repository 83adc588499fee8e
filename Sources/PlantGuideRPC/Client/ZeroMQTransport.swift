import Foundation
import PlantGuideThreads
import Logging
import PlantGuideProtos

/// Calls over ZeroMQ: one DEALER socket per endpoint of the target, served on the process's RPC I/O thread
/// (``ClientLoop``), and for a `dns:///` target a thread that looks the name up again every refresh interval.
final class ZeroMQTransport: ClientTransport {
    private let loop: ClientLoop
    private let resolverStop = DispatchSemaphore(value: 0)

    init(target: RPCTarget, configuration: RPCClientConfiguration, logger: Logger) throws {
        loop = try ClientLoop(target: target, configuration: configuration, logger: logger)
        loop.start()
        if case .dns(let host, let port) = target {
            startResolver(host: host, port: port, interval: configuration.dnsRefreshInterval)
        }
    }

    var executor: IOThreadExecutor { loop.thread.executor }

    func close() {
        resolverStop.signal()
        loop.close()
    }

    func waitUntilAllEndpointsReady(deadline: MonotonicTime) async -> Bool {
        await withCheckedContinuation { continuation in
            loop.submit(.whenAllReady(continuation, deadline))
        }
    }

    func send(_ envelope: [UInt8], method: String, deadline: MonotonicTime, waitForReady: Bool) async throws
        -> Plantguide_Rpc_V1_RpcResponse
    {
        if Task.isCancelled { throw RPCError(.cancelled, "the call was cancelled") }
        // The loop orders the two commands: a cancel that arrives before its submit marks the call, and the
        // submit then fails it at once.
        let call = ClientCall(envelope: envelope, method: method, deadline: deadline, waitForReady: waitForReady)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                call.attach(continuation)
                loop.submit(.submit(call))
            }
        } onCancel: {
            loop.submit(.cancel(call))
        }
    }

    private func startResolver(host: String, port: Int, interval: Duration) {
        let loop = self.loop
        let stop = resolverStop
        let thread = Thread(named: "plantguide-dns") {
            repeat {
                loop.submit(.endpoints(DNSResolver.endpoints(host: host, port: port)))
            } while stop.wait(timeout: .now() + .milliseconds(Int(interval.milliseconds))) == .timedOut
        }
        thread.start()
    }
}
