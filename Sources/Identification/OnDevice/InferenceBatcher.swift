import Foundation
import PlantGuideThreads
import PlantGuideInference
import PlantGuideRPCCore
import Tracing

/// How the model is shared under load, as in inference servers' dynamic batching.
public struct BatchingConfiguration: Sendable, Equatable {
    /// Images run together at most. A request's photos are never split; a request larger than this runs alone.
    public var maxBatchSize = 8
    /// How long the first waiting image waits for others to join its batch.
    public var maxWait: Duration = .milliseconds(2)
    /// Threads running the model, each with its own buffers.
    public var workers = 1
    /// Images waiting at most; beyond this, requests are refused with RESOURCE_EXHAUSTED.
    public var maxQueuedImages = 64

    public init() {}
}

/// What the batcher has done since the start, for status and tests.
public struct BatchStatistics: Sendable, Equatable {
    /// Batches run (including ones whose requests had all expired).
    public var batches = 0
    /// Images taken from the queue (run or expired).
    public var images = 0
    public var largestBatch = 0
    /// Requests refused because the queue was full.
    public var refused = 0
    /// Requests whose deadline passed before the model got to them.
    public var expired = 0
    /// Images waiting now.
    public var waiting = 0
}

/// Runs the model for many concurrent requests: queues their images, lets a worker take up to `maxBatchSize`
/// images once the batch is full or the first has waited `maxWait`, drops requests whose deadline has passed
/// before running them, and refuses requests when the queue is full.
final class InferenceBatcher: @unchecked Sendable {
    typealias Statistics = BatchStatistics

    private struct Job {
        let inputs: [Float]
        let images: Int
        let deadline: ContinuousClock.Instant
        let enqueued: ContinuousClock.Instant
        /// The request's trace context, when it is traced.
        let trace: ServiceContext?
        let continuation: CheckedContinuation<[Float], any Error>
    }

    let configuration: BatchingConfiguration
    private let model: InferenceModel
    private let inputName: String
    private let outputName: String
    /// One image's input shape, [3, height, width].
    private let imageShape: [Int]
    private let condition = NSCondition()
    private var queue: [Job] = []
    private var queuedImages = 0
    private var stopping = false
    private var stats = Statistics()

    init(model: InferenceModel, inputName: String, outputName: String, imageShape: [Int], configuration: BatchingConfiguration) {
        self.model = model
        self.inputName = inputName
        self.outputName = outputName
        self.imageShape = imageShape
        self.configuration = configuration
        for index in 0..<max(1, configuration.workers) {
            // The workers keep the batcher alive until `stop()`.
            let thread = Thread(named: "inference-\(index)") {
                self.work()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    var statistics: Statistics {
        condition.withLock {
            var current = stats
            current.waiting = queuedImages
            return current
        }
    }

    /// Stops the workers once the queue is empty.
    func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
    }

    /// The model's output for `images` images laid out one after another in `inputs`: one output row per image.
    func run(_ inputs: [Float], images: Int, deadline: ContinuousClock.Instant) async throws -> [Float] {
        let trace = InstrumentationSystem.tracer is NoOpTracer ? nil : ServiceContext.current
        return try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            defer { condition.unlock() }
            guard !stopping else {
                continuation.resume(throwing: RPCError(.unavailable, "the model is shutting down")
                    .reason(RPCErrorReason.shuttingDown, domain: IdentificationErrorReason.domain).retry(after: .seconds(1)))
                return
            }
            guard queuedImages + images <= max(configuration.maxQueuedImages, images) || queue.isEmpty else {
                stats.refused += 1
                let error = RPCError(.resourceExhausted, "the on-device model's queue is full (\(queuedImages) images waiting); retry with back-off")
                    .reason(IdentificationErrorReason.modelQueueFull, domain: IdentificationErrorReason.domain,
                            metadata: ["queued_images": "\(queuedImages)"])
                    .retry(after: .seconds(1))
                continuation.resume(throwing: error)
                return
            }
            queue.append(Job(inputs: inputs, images: images, deadline: deadline, enqueued: .now, trace: trace, continuation: continuation))
            queuedImages += images
            condition.broadcast()
        }
    }

    private func work() {
        let session = InferenceSession(model: model)
        while let jobs = nextBatch() {
            let now = ContinuousClock.now
            let live = jobs.filter { $0.deadline > now }
            if live.count < jobs.count {
                condition.withLock { stats.expired += jobs.count - live.count }
                for job in jobs where job.deadline <= now {
                    job.continuation.resume(throwing: RPCError(.deadlineExceeded, "the deadline passed while the photo waited for the model"))
                }
            }
            guard !live.isEmpty else { continue }
            let count = live.reduce(0) { $0 + $1.images }
            var inputs: [Float] = []
            inputs.reserveCapacity(count * imageShape.reduce(1, *))
            for job in live { inputs += job.inputs }
            let span = InferenceBatchSpan.start(images: count, requests: live.count, traced: live.compactMap(\.trace),
                                                waited: now - live[0].enqueued)
            defer { span?.end() }
            do {
                let outputs = try session.run([inputName: Tensor(shape: [count] + imageShape, floats: inputs)])
                guard let output = outputs[outputName] else { throw InferenceError(.malformedModel, "no output '\(outputName)'") }
                let row = output.count / max(count, 1)
                var start = 0
                for job in live {
                    job.continuation.resume(returning: Array(output.floats[(start * row)..<((start + job.images) * row)]))
                    start += job.images
                }
            } catch {
                span?.recordError(error)
                span?.setStatus(SpanStatus(code: .error, message: "the on-device model failed"))
                for job in live { job.continuation.resume(throwing: RPCError(.internal, "the on-device model failed: \(error)")) }
            }
        }
    }

    /// Waits for work, then for the batch to fill or its first image to have waited long enough. Nil when stopping.
    private func nextBatch() -> [Job]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty {
            if stopping { return nil }
            condition.wait()
        }
        let waitUntil = queue[0].enqueued + configuration.maxWait
        while queuedImages < configuration.maxBatchSize && ContinuousClock.now < waitUntil && !stopping {
            let left = (waitUntil - ContinuousClock.now).components
            _ = condition.wait(until: Date(timeIntervalSinceNow: max(0, Double(left.seconds) + Double(left.attoseconds) / 1e18)))
            if queue.isEmpty { return [] }
        }
        var taken: [Job] = []
        var images = 0
        while let job = queue.first, taken.isEmpty || images + job.images <= configuration.maxBatchSize {
            taken.append(queue.removeFirst())
            images += job.images
        }
        queuedImages -= images
        stats.batches += 1
        stats.images += images
        stats.largestBatch = max(stats.largestBatch, images)
        return taken
    }
}
