import Foundation
import PlantGuideRPC
import Synchronization
import Testing

/// What a test started and must stop: in-process servers, service processes and temporary folders. With the
/// `.cleansUp` trait on a suite, everything a test registers here is shut down and removed when the test ends,
/// also when it throws or an expectation fails (as HummingbirdTesting's `withTestServer` does), so that a failing
/// test leaves no bound port, no running thread and no folder behind.
public final class TestResources: Sendable {
    @TaskLocal public static var current: TestResources?

    private let servers = Mutex<[RPCServer]>([])
    private let processes = Mutex<[ServiceProcess]>([])
    private let folders = Mutex<[URL]>([])

    init() {}

    /// Registers `server` with the running test's resources (nothing happens outside a `.cleansUp` suite).
    public static func track(_ server: RPCServer) { current?.servers.withLock { $0.append(server) } }

    public static func track(_ process: ServiceProcess) { current?.processes.withLock { $0.append(process) } }

    /// Registers a temporary folder to remove when the test ends.
    public static func track(folder: URL) { current?.folders.withLock { $0.append(folder) } }

    func release() async {
        for server in servers.withLock({ $0 }) { await server.shutdown(grace: .zero) }
        for process in processes.withLock({ $0 }) { await process.kill() }
        for folder in folders.withLock({ $0 }) { try? FileManager.default.removeItem(at: folder) }
    }
}

/// Shuts down and removes what each test registered with ``TestResources``, however the test ends.
public struct CleansUpTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        ExecutorStallWatch.start()
        guard testCase != nil else { return try await function() }
        let resources = TestResources()
        do {
            try await TestResources.$current.withValue(resources) { try await function() }
        } catch {
            await resources.release()
            throw error
        }
        await resources.release()
    }
}

extension Trait where Self == CleansUpTrait {
    /// Stop the servers and processes and remove the folders each test registered: see ``TestResources``.
    public static var cleansUp: Self { CleansUpTrait() }
}
