import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPC

/// A PlantGuide service executable started as a real child process on loopback, for tests that kill and restart
/// services. Stopped (SIGKILL) when released.
public final class ServiceProcess: @unchecked Sendable {
    public let executable: String
    public let endpoint: String
    public let dataDirectory: URL
    private let process: SpawnedProcess

    /// Starts `executable` (e.g. "plantguide-collection", from the build folder) bound to `endpoint`, with
    /// `environment` added to this process's, and waits, with health checks that wait for readiness (no sleeping,
    /// as a client configured by `client`: with CurveZMQ keys for a service that requires them), until it serves.
    /// Its log lines of `logLevel` and above go to the file `log` when given (appended), else to this process's
    /// standard error. `arguments` follow the ones every service takes.
    /// - Throws: when the binary is missing or the service does not come up within `timeout`.
    public init(
        _ executable: String, endpoint: String, dataDirectory: URL? = nil, environment: [String: String] = [:],
        client configuration: RPCClientConfiguration = .forTests, timeout: Duration = TestTime.scaled(.seconds(60)),
        logLevel: String = "warning", log: URL? = nil, arguments: [String] = []
    ) async throws {
        self.executable = executable
        self.endpoint = endpoint
        self.dataDirectory = dataDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("plantguide-test-\(UUID().uuidString)", isDirectory: true)
        var standardError = SpawnedProcess.Stream.inherit
        var logHandle: FileHandle?
        if let log {
            if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
            let handle = try FileHandle(forWritingTo: log)
            try handle.seekToEnd()
            standardError = .descriptor(handle.fileDescriptor)
            logHandle = handle
        }
        process = try SpawnedProcess(
            BuildProducts.url(of: executable).path,
            ["--bind", endpoint, "--data", self.dataDirectory.path, "--log-level", logLevel] + arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            standardOutput: .null, standardError: standardError)
        try logHandle?.close()
        TestResources.track(self)
        TestResources.track(folder: self.dataDirectory)
        let client = try RPCClient(target: endpoint, configuration: configuration)
        defer { client.close() }
        _ = try await client.call(
            Plantguide_Health_V1_Health.check, .init(), options: .init(timeout: timeout, waitForReady: true))
    }

    public var processIdentifier: Int32 { process.pid }

    /// SIGKILL, as a crash or the OOM killer would: no chance to clean up. Waits (off the cooperative pool) for
    /// the process to be gone.
    public func kill() async {
        process.send(SIGKILL)
        await process.waitForExit()
    }

    /// How the process ended, e.g. "exit 0" or "signal 15" (a signal that killed it); "running" before.
    public var ending: String {
        process.ending?.description ?? "running"
    }

    /// SIGTERM, and waits for the exit; returns the exit code, or the signal that ended it.
    @discardableResult
    public func terminate() async -> Int32 {
        process.send(SIGTERM)
        switch await process.waitForExit() {
        case .exit(let code): return code
        case .signal(let signal): return signal
        }
    }
}

/// Where `swift build` put the package's executables: beside the test bundle.
public enum BuildProducts {
    /// `executable` in the build folder. A service's name (`plantguide-collection`) is a symbolic link to the one
    /// `plantguide` executable, made here when the build has none yet (as Scripts/link-services makes them).
    public static func url(of executable: String) -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // swift-testing on Linux runs the .xctest binary from the build folder itself.
        if folder.pathExtension == "xctest" { folder = folder.deletingLastPathComponent() }
        let url = folder.appendingPathComponent(executable)
        if executable.hasPrefix("plantguide-"), executable != "plantguide-bench" {
            // Another test may make it at the same moment: EEXIST is as good as made.
            _ = symlink("plantguide", url.path)
        }
        return url
    }
}
