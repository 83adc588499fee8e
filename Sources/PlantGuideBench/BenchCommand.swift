import ArgumentParser
import Foundation
import Logging
import PlantGuideProtos
import PlantGuideRPC

/// `plantguide-bench`: the Swift side of `Scripts/bench rpc` — an echo server and a closed-loop load client for
/// the PlantGuide RPC layer. Results are JSON lines that Scripts/bench turns into a table.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plantguide-bench",
        abstract: "Benchmark the PlantGuide RPC layer (used by Scripts/bench rpc).",
        subcommands: [
            Serve.self, Run.self, Call.self, SeedCollection.self, ThumbnailBench.self, ScheduleBench.self, DueQueryBench.self,
            InferenceBench.self, IdentifyBench.self, PhotoCommand.self, HTTPLoad.self, AppMixLoad.self, GrowthBench.self, StorageBench.self,
            RemindersBench.self, CareDataColdBench.self, CareDataMixBench.self,
        ])
}

/// The echo method the benchmark calls: a GetPhotoResponse's `data` bytes sent and returned unchanged.
enum BenchMethods {
    static let echo = RPCMethod<Plantguide_Collection_V1_GetPhotoResponse, Plantguide_Collection_V1_GetPhotoResponse>(
        path: "/plantguide.bench.v1.Bench/Echo", isIdempotent: true)
}

struct EchoService: RPCService {
    func registerMethods(with router: inout RPCRouter) {
        router.register(BenchMethods.echo) { request, _ in request }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the echo method until SIGTERM.")

    @Option(help: "Endpoint to bind.") var bind = "tcp://127.0.0.1:0"
    @Flag(help: "Run handlers on the process's RPC I/O thread instead of Swift's global pool.") var ioThread = false
    @Flag(help: "Serve with no interceptors (the default traces and propagates deadlines).") var noInterceptors = false

    func run() async throws {
        var logger = Logger(label: "plantguide-bench")
        logger.logLevel = .warning
        var configuration = RPCServerConfiguration(bindEndpoint: bind)
        configuration.maxConcurrentCalls = 1_024
        if noInterceptors { configuration.interceptors = [] }
        configuration.handlerExecution = ioThread ? .ioThread : .globalPool
        let server = RPCServer(configuration: configuration, services: [EchoService()], logger: logger)
        FileHandle.standardOutput.write(Data((try server.start() + "\n").utf8))
        try await server.run()
    }
}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Call the echo method in a closed loop and print a JSON result.")

    @Option(help: "Server endpoint, or \"in-process\" for an echo server in this process reached with no socket.")
    var target: String
    @Option(help: "Payload bytes per call.") var payload = 64
    @Option(help: "Calls in flight.") var inflight = 1
    @Option(help: "Seconds to measure.") var duration = 3.0
    @Option(help: "Seconds to warm up first.") var warmup = 1.0
    @Flag(help: "Run the calling tasks on the process's RPC I/O thread (RPCClient.executor).") var ioThread = false
    @Flag(help: "Call with no interceptors (the default traces).") var noInterceptors = false
    @Option(help: "Name to report the results under.") var label = "swift-rpc"

    func run() async throws {
        var server: RPCServer?
        let client: RPCClient
        if target == RPCServer.inProcessEndpoint {
            // The same server as `serve` (handlers on the global pool), called through its loop's mailbox: what the
            // RPC layer costs without sockets, for comparison with the same calls over loopback TCP.
            var logger = Logger(label: "plantguide-bench")
            logger.logLevel = .warning
            var configuration = RPCServerConfiguration(bindEndpoint: "tcp://127.0.0.1:0")
            configuration.maxConcurrentCalls = 1_024
            let echo = RPCServer(configuration: configuration, services: [EchoService()], logger: logger)
            try echo.startInProcess()
            server = echo
            client = RPCClient(inProcess: echo)
        } else {
            client = try RPCClient(target: target, interceptors: noInterceptors ? [] : RPCClient.defaultInterceptors)
        }
        defer { client.close() }
        let request = Plantguide_Collection_V1_GetPhotoResponse.with { $0.data = Data(repeating: 0xAB, count: payload) }
        _ = try await client.call(BenchMethods.echo, request, options: .init(waitForReady: true))
        _ = try await load(client, request, seconds: warmup)
        let clock = ContinuousClock()
        let started = clock.now
        let samples = try await load(client, request, seconds: duration)
        let elapsed = clock.now - started
        let result = BenchResult(implementation: label, payload: payload, inflight: inflight, samples: samples, elapsed: elapsed)
        print(result.json)
        await server?.shutdown()
    }

    private func load(_ client: RPCClient, _ request: Plantguide_Collection_V1_GetPhotoResponse, seconds: Double) async throws -> [Int64] {
        try await closedLoop(inflight: inflight, seconds: seconds, executor: ioThread ? client.executor : nil) {
            let reply = try await client.call(BenchMethods.echo, request)
            precondition(reply.data.count == request.data.count, "echo changed the payload")
        }
    }
}

/// `inflight` tasks each call `body` in a loop until `seconds` have passed; returns every latency in ns.
func closedLoop(
    inflight: Int, seconds: Double, executor: (any TaskExecutor)? = nil, _ body: @escaping @Sendable () async throws -> Void
) async throws -> [Int64] {
    let clock = ContinuousClock()
    let end = clock.now + .milliseconds(Int64(seconds * 1_000))
    return try await withThrowingTaskGroup(of: [Int64].self) { group in
        for _ in 0..<inflight {
            group.addTask(executorPreference: executor) {
                var latencies: [Int64] = []
                latencies.reserveCapacity(1 << 16)
                while clock.now < end {
                    let start = clock.now
                    try await body()
                    latencies.append((clock.now - start).nanoseconds)
                }
                return latencies
            }
        }
        return try await group.reduce(into: []) { $0 += $1 }
    }
}

/// Any method of the contract by path, in a closed loop: for benchmarks of real services.
struct Call: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Call one method of a running service in a closed loop and print a JSON result.")

    @Option(help: "Server endpoint.") var target: String
    @Option(help: "Method path, e.g. /plantguide.health.v1.Health/Check.") var method: String
    @Option(help: "Request in proto3 JSON; \"{n}\" in it becomes a number unique to each call.") var json = "{}"
    @Option(help: "Calls in flight.") var inflight = 1
    @Option(help: "Seconds to measure.") var duration = 3.0
    @Option(help: "Seconds to warm up first.") var warmup = 1.0
    @Option(help: "Name to report the results under.") var label: String
    @Option(name: [.customShort("H"), .long], help: "Metadata 'key: value', repeatable.") var header: [String] = []

    func run() async throws {
        var metadata: [String: String] = [:]
        for entry in header {
            let parts = entry.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { throw ValidationError("metadata '\(entry)' is not 'key: value'") }
            metadata[parts[0].lowercased()] = parts[1]
        }
        let options = RPCCallOptions(metadata: metadata)
        guard let known = PlantGuideMethods.all.first(where: { $0.path == method }) else {
            throw ValidationError("\(method) is not a method of the contract")
        }
        let payload = try known.requestType.init(jsonString: json.replacingOccurrences(of: "{n}", with: "0")).serializedData()
        let client = try RPCClient(target: target)
        defer { client.close() }
        let path = method
        let template = json
        let varies = json.contains("{n}")
        let numbers = UniqueNumbers()
        let call: @Sendable () async throws -> Void = {
            // "{n}": a request of its own each call (a new plant id for a save), encoded in the timed part.
            let body = varies
                ? try known.requestType.init(jsonString: template.replacingOccurrences(of: "{n}", with: String(numbers.next()))).serializedData()
                : payload
            _ = try await client.call(path: path, payload: body, isIdempotent: known.isIdempotent, options: options)
        }
        try await call()
        _ = try await closedLoop(inflight: inflight, seconds: warmup, call)
        let clock = ContinuousClock()
        let started = clock.now
        let samples = try await closedLoop(inflight: inflight, seconds: duration, call)
        print(BenchResult(implementation: label, payload: payload.count, inflight: inflight, samples: samples, elapsed: clock.now - started).json)
    }
}

/// One benchmark configuration's outcome, as the JSON line Scripts/bench reads.
struct BenchResult {
    let implementation: String
    let payload: Int
    let inflight: Int
    let samples: [Int64]
    let elapsed: Duration

    var json: String {
        let sorted = samples.sorted()
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1_000
        }
        let seconds = Double(elapsed.nanoseconds) / 1e9
        return String(
            format: #"{"impl":"%@","payload":%d,"inflight":%d,"calls":%d,"seconds":%.3f,"p50_us":%.1f,"p99_us":%.1f,"p999_us":%.1f}"#,
            implementation, payload, inflight, sorted.count, seconds, percentile(0.5), percentile(0.99), percentile(0.999))
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
