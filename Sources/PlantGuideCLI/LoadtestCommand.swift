import ArgumentParser
import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPC
import Synchronization

/// `plantguide loadtest TARGET`: load on a service (the identification service with real photos by default).
struct LoadtestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loadtest",
        abstract: "Put load on a service and report throughput, latency percentiles and statuses.",
        discussion: """
            Closed loop (--concurrency N callers, each waiting for its answer) or open loop (--rate R calls a \
            second whatever the answers, so that queueing delay shows: latency counts from when a call was due). \
            Identify calls, to the identification service or the gateway's IdentifyPlant (with -H \
            'authorization: Bearer TOKEN'), carry the --photo files; other methods take --json. Only loopback \
            targets are for tests.
            Example: plantguide loadtest tcp://127.0.0.1:7001 --photo leaf.jpg --concurrency 8 --duration 30
            """)

    @Argument(help: ArgumentHelp("Where the service listens (tcp://HOST:PORT, a list, or dns:///NAME:PORT).", valueName: "target"))
    var target: String

    @Option(help: "Method to call.") var method = "/plantguide.identification.v1.IdentificationService/Identify"
    @Option(help: ArgumentHelp("A photo file for Identify, repeatable (one to five per call).", valueName: "file")) var photo: [String] = []
    @Option(help: "Identification method for Identify: hybrid, on_device or plantnet.") var identifyMethod = "hybrid"
    @Option(help: "Request in proto3 JSON, for methods other than Identify.") var json = "{}"
    @Option(help: "Callers in the closed loop.") var concurrency = 8
    @Option(help: "Calls a second (open loop); overrides --concurrency.") var rate: Double?
    @Option(help: "Seconds to run.") var duration: Double = 10
    @Option(help: "Stop after this many calls.") var requests: Int?
    @Option(help: "Seconds each call may take.") var timeout: Double = 10
    @Option(name: [.customShort("H"), .long], help: "Metadata 'key: value', repeatable.") var header: [String] = []
    @Flag(name: .customLong("json-output"), help: "Print the result as JSON, and no progress lines.") var jsonOutput = false

    func validate() throws {
        guard concurrency >= 1, concurrency <= 10_000 else { throw ValidationError("--concurrency must be 1 to 10000") }
        if let rate { guard rate > 0, rate <= 1_000_000 else { throw ValidationError("--rate must be more than 0") } }
        guard duration > 0 || requests != nil else { throw ValidationError("give a positive --duration or --requests") }
    }

    func run() async throws {
        let (payload, idempotent) = try makePayload()
        var metadata: [String: String] = [:]
        for entry in header {
            let parts = entry.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { throw ValidationError("metadata '\(entry)' is not 'key: value'") }
            metadata[parts[0].lowercased()] = parts[1]
        }
        var configuration = RPCClientConfiguration()
        configuration.maxMessageSize = 64 << 20
        let client = try RPCClient(target: target, configuration: configuration)
        defer { client.close() }
        let options = RPCCallOptions(timeout: .milliseconds(Int64(timeout * 1_000)), metadata: metadata)
        let path = method
        let recorder = LoadRecorder()
        let clock = ContinuousClock()
        let start = clock.now
        let end = start + .milliseconds(Int64(duration * 1_000))
        let limit = requests ?? Int.max

        let call: @Sendable (ContinuousClock.Instant) async -> Void = { due in
            var code = RPCError.Code.ok
            do {
                _ = try await client.call(path: path, payload: payload, isIdempotent: idempotent, options: options)
            } catch let error as RPCError {
                code = error.code
            } catch {
                code = .unknown
            }
            recorder.record(code: code, nanoseconds: (clock.now - due).nanosecondsValue)
        }
        let quiet = jsonOutput  // machines read the JSON only
        let progress = Task {
            while !Task.isCancelled, !quiet {
                try? await Task.sleep(for: .seconds(1))
                let snapshot = recorder.snapshot()
                FileHandle.standardError.write(Data(String(format: "\r%6.1f s  %8d calls  %8d errors  ", (clock.now - start).seconds,
                                                          snapshot.total, snapshot.errors).utf8))
            }
        }
        let issued = CallCounter()
        if let rate {
            let interval = Duration.nanoseconds(Int64(1e9 / rate))
            await withTaskGroup(of: Void.self) { group in
                var due = start
                while due < end, issued.next() <= limit {
                    try? await clock.sleep(until: due)
                    let scheduled = due
                    group.addTask { await call(scheduled) }
                    due = due + interval
                }
            }
        } else {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        while clock.now < end, issued.next() <= limit {
                            await call(clock.now)
                        }
                    }
                }
            }
        }
        progress.cancel()
        if !quiet { FileHandle.standardError.write(Data("\n".utf8)) }
        report(recorder.snapshot(), elapsed: (clock.now - start).seconds)
    }

    private func makePayload() throws -> (Data, Bool) {
        switch method {
        case Self.identify:
            let (images, choice) = try photosAndMethod()
            return (try Plantguide_Identification_V1_IdentifyRequest.with { $0.images = images; $0.method = choice }.serializedData(), true)
        case Self.identifyThroughGateway:
            let (images, choice) = try photosAndMethod()
            return (try Plantguide_Gateway_V1_IdentifyPlantRequest.with { $0.images = images; $0.method = choice }.serializedData(), true)
        default:
            break
        }
        guard let known = PlantGuideMethods.all.first(where: { $0.path == method }) else {
            throw ValidationError("\(method) is not a method of the contract (plantguide rpc list)")
        }
        return (try known.requestType.init(jsonString: json).serializedData(), known.isIdempotent)
    }

    private static let identify = "/plantguide.identification.v1.IdentificationService/Identify"
    private static let identifyThroughGateway = "/plantguide.gateway.v1.GatewayService/IdentifyPlant"

    private func photosAndMethod() throws -> ([Plantguide_Identification_V1_IdentifyImage], Plantguide_Identification_V1_IdentificationMethod) {
        guard (1...5).contains(photo.count) else { throw ValidationError("\(method) needs one to five --photo files") }
        let images = try photo.map { file -> Plantguide_Identification_V1_IdentifyImage in
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
            return .with { $0.data = data }
        }
        let choice: Plantguide_Identification_V1_IdentificationMethod = switch identifyMethod {
        case "on_device": .onDevice
        case "plantnet": .plantnet
        default: .hybrid
        }
        return (images, choice)
    }

    private func report(_ result: LoadRecorder.Snapshot, elapsed: Double) {
        let millis = { (percentile: Double) in Double(result.histogram.value(atPercentile: percentile)) / 1e6 }
        let statuses = result.codes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if jsonOutput {
            let object: [String: Any] = [
                "calls": result.total, "seconds": elapsed, "throughput": Double(result.total) / elapsed,
                "latency_ms": ["p50": millis(50), "p90": millis(90), "p99": millis(99), "p99.9": millis(99.9),
                               "max": Double(result.histogram.max) / 1e6],
                "statuses": Dictionary(uniqueKeysWithValues: statuses),
                "mode": rate.map { "open loop, \($0) calls/s" } ?? "closed loop, \(concurrency) callers",
            ]
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                print(String(decoding: data, as: UTF8.self))
            }
            return
        }
        print(rate.map { String(format: "open loop at %.0f calls/s", $0) } ?? "closed loop with \(concurrency) callers")
        print(String(format: "%d calls in %.1f s: %.1f calls/s", result.total, elapsed, Double(result.total) / elapsed))
        print(String(format: "latency ms: p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f",
                     millis(50), millis(90), millis(99), millis(99.9), Double(result.histogram.max) / 1e6))
        print("statuses: " + statuses.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
    }
}

/// Numbers the calls of a run, across its callers.
private final class CallCounter: Sendable {
    private let value = Atomic<Int>(0)

    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
}

/// What a load run saw, shared by its callers.
private final class LoadRecorder: Sendable {
    struct Snapshot {
        var histogram = LatencyHistogram()
        var codes: [String: Int] = [:]
        var total = 0
        var errors = 0
    }

    private let state = Mutex(Snapshot())

    func record(code: RPCError.Code, nanoseconds: Int64) {
        state.withLock { state in
            state.histogram.record(UInt64(max(0, nanoseconds)))
            state.codes[code.name, default: 0] += 1
            state.total += 1
            if code != .ok { state.errors += 1 }
        }
    }

    func snapshot() -> Snapshot { state.withLock { $0 } }
}

extension Duration {
    var nanosecondsValue: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
