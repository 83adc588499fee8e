import ArgumentParser
import Foundation
import PlantGuideImaging
import PlantGuideInference
import PlantGuideProtos
import PlantGuideRPC

/// One inference measurement as a JSON line, the format Scripts/models/onnxruntime_bench.py also prints.
struct InferenceResult {
    let engine: String
    let model: String
    let batch: Int
    let threads: Int
    let samples: [Double]  // milliseconds per run
    var blas: String? = nil

    var json: String {
        let sorted = samples.sorted()
        func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        let total = samples.reduce(0, +)
        var object: [String: Any] = [
            "engine": engine, "model": model, "batch": batch, "threads": threads, "runs": samples.count,
            "p50_ms": percentile(0.5), "p90_ms": percentile(0.9), "p99_ms": percentile(0.99),
            "images_per_s": total > 0 ? Double(batch * samples.count) / (total / 1_000) : 0,
        ]
        if let blas { object["blas"] = blas }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// `plantguide-bench inference`: PlantGuideInference on one model, batch and thread count.
struct InferenceBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "inference", abstract: "Time the ONNX executor on one model.")

    @Option(help: "The .onnx file.") var model: String
    @Option(help: "Model name to report.") var name: String
    @Option(help: "Images per run.") var batch = 1
    @Option(help: "OpenBLAS threads.") var threads = 1
    @Option(help: "Timed runs.") var iterations = 50
    @Option(help: "Untimed runs first.") var warmup = 5
    @Flag(help: "Print the time per node instead.") var profile = false

    func run() throws {
        InferenceModel.setMatrixThreads(threads)
        let loaded = try InferenceModel(contentsOf: URL(fileURLWithPath: model))
        let session = InferenceSession(model: loaded)
        guard let port = loaded.inputs.first, let shape = port.shape else { throw ValidationError("the model has no input of known shape") }
        let dimensions = [batch] + shape.dropFirst().map { $0 ?? 1 }
        var seed: UInt32 = 7
        let values = (0..<dimensions.reduce(1, *)).map { _ in
            seed = seed &* 1_103_515_245 &+ 12_345
            return Float(seed >> 8) / Float(1 << 24) * 2 - 1
        }
        let inputs = [port.name: Tensor(shape: dimensions, floats: values)]
        for _ in 0..<warmup { _ = try session.run(inputs) }
        if profile {
            for (node, milliseconds) in try session.profile(inputs, runs: iterations) {
                print(String(format: "%8.3f ms  %@", milliseconds, node))
            }
            return
        }
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<iterations {
            let start = clock.now
            _ = try session.run(inputs)
            samples.append(Double((clock.now - start).nanoseconds) / 1e6)
        }
        print(InferenceResult(engine: "plantguide", model: name, batch: batch, threads: threads, samples: samples,
                              blas: InferenceModel.matrixKernels).json)
    }
}

/// `plantguide-bench identify`: Identify round trips of one photo against a running identification service.
struct IdentifyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "identify", abstract: "Time Identify of one photo, end to end over RPC.")

    @Option(help: "Service endpoint.") var target: String
    @Option(help: "The photo file.") var photo: String
    @Option(help: "Label to report.") var label = "identify"
    @Option(help: "Timed calls.") var iterations = 30
    @Flag(help: "Call Health/Check instead (the bare round trip).") var bare = false

    func run() async throws {
        var configuration = RPCClientConfiguration()
        configuration.maxMessageSize = 64 << 20
        let client = try RPCClient(target: target, configuration: configuration)
        defer { client.close() }
        let request = Plantguide_Identification_V1_IdentifyRequest.with {
            $0.method = .onDevice
            $0.images = [.with { $0.data = (try? Data(contentsOf: URL(fileURLWithPath: photo))) ?? Data(); $0.organ = .leaf }]
        }
        let options = RPCCallOptions(timeout: .seconds(30))
        func call() async throws {
            if bare {
                _ = try await client.call(Plantguide_Health_V1_Health.check, Plantguide_Health_V1_HealthCheckRequest(), options: options)
            } else {
                _ = try await client.call(Plantguide_Identification_V1_IdentificationService.identify, request, options: options)
            }
        }
        for _ in 0..<3 { try await call() }
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<iterations {
            let start = clock.now
            try await call()
            samples.append(Double((clock.now - start).nanoseconds) / 1e6)
        }
        print(InferenceResult(engine: "plantguide", model: label, batch: 1, threads: 1, samples: samples).json)
    }
}

/// `plantguide-bench photo`: writes the photo-like test JPEG (gradients with noise) of a given size.
struct PhotoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "photo", abstract: "Write a photo-like JPEG for benchmarks and load tests.")

    @Option(help: "Width in pixels.") var width = 4_000
    @Option(help: "Height in pixels.") var height = 3_000
    @Option(help: "Output file.") var output: String

    func run() throws {
        let jpeg = try JPEGCodec.encode(ThumbnailBench.photo(width: width, height: height), quality: 90)
        try Data(jpeg).write(to: URL(fileURLWithPath: output))
    }
}
