/// A model planned for fixed input shapes: each node's output shape computed, its kernel built, and every
/// intermediate value given a buffer, reused once the value is dead. Every run reuses those buffers; only the
/// returned output tensors are new.
final class ExecutionPlan {
    private struct Step {
        let node: String
        let kernel: Kernel
        let inputs: [UnsafePointer<Float>?]
        let outputs: [UnsafeMutablePointer<Float>]
    }

    private enum Output {
        case buffer(UnsafeMutablePointer<Float>, shape: [Int])
        case constant(Tensor)
    }

    private var steps: [Step] = []
    private var inputBuffers: [String: (pointer: UnsafeMutablePointer<Float>, shape: [Int])] = [:]
    private var outputs: [(name: String, value: Output)] = []
    private var memory: [UnsafeMutableRawPointer] = []
    /// Plan-made constants (Constant nodes, folded values) that steps point into.
    private var constantsKeptAlive: [ConstantBuffer] = []
    /// The bytes of the largest value a run computes: how much of the cache one layer's output takes.
    private(set) var largestValueBytes = 0

    init(model: InferenceModel, inputs: [String: ValueInfo]) throws(InferenceError) {
        var builder = PlanBuilder(model: model)
        try builder.build(inputs: inputs)

        // Physical buffers: each value gets one when it is first written and returns it after its last read.
        var physical: [Int: UnsafeMutablePointer<Float>] = [:]
        var free: [(capacity: Int, pointer: UnsafeMutablePointer<Float>)] = []
        func allocate(_ logical: Int) {
            let count = max(builder.buffers[logical].count, 1)
            if let best = free.indices.filter({ free[$0].capacity >= count }).min(by: { free[$0].capacity < free[$1].capacity }) {
                physical[logical] = free.remove(at: best).pointer
                return
            }
            let raw = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64)
            raw.initializeMemory(as: Float.self, repeating: 0, count: count)
            memory.append(raw)
            physical[logical] = raw.assumingMemoryBound(to: Float.self)
        }
        func release(_ logical: Int) {
            guard let pointer = physical[logical] else { return }
            free.append((max(builder.buffers[logical].count, 1), pointer))
        }
        largestValueBytes = (builder.buffers.map(\.count).max() ?? 0) * MemoryLayout<Float>.size
        for logical in builder.graphInputBuffers.values { allocate(logical) }
        for (index, step) in builder.steps.enumerated() {
            for logical in step.writes { allocate(logical) }
            steps.append(Step(
                node: step.node,
                kernel: step.kernel,
                inputs: step.reads.map { reference in
                    switch reference {
                    case .none: nil
                    case .constant(let pointer): pointer
                    case .buffer(let logical): UnsafePointer(physical[logical]!)
                    }
                },
                outputs: step.writes.map { physical[$0]! }))
            for logical in Set(step.reads.compactMap(\.logical) + step.writes) where builder.lastRead(logical) <= index && !builder.pinned.contains(logical) {
                release(logical)
            }
        }
        for (name, logical) in builder.graphInputBuffers { inputBuffers[name] = (physical[logical]!, builder.buffers[logical].shape) }
        for (name, value) in builder.graphOutputs {
            switch value {
            case .buffer(let logical, let shape): outputs.append((name, .buffer(physical[logical]!, shape: shape)))
            case .constant(let tensor): outputs.append((name, .constant(tensor)))
            }
        }
        constantsKeptAlive = builder.ownedConstants
    }

    deinit { for raw in memory { raw.deallocate() } }

    /// Runs the plan. The inputs must have the shapes it was planned for. With `timings`, adds each step's
    /// nanoseconds under its node's name.
    func run(_ inputs: [String: Tensor], timings: UnsafeMutablePointer<[String: Int64]>? = nil) -> [String: Tensor] {
        for (name, buffer) in inputBuffers {
            let tensor = inputs[name]!
            precondition(tensor.shape == buffer.shape)
            buffer.pointer.update(from: tensor.floats, count: tensor.count)
        }
        if let timings {
            let clock = ContinuousClock()
            for step in steps {
                let start = clock.now
                step.kernel(step.inputs, step.outputs)
                let (seconds, attoseconds) = (clock.now - start).components
                timings.pointee[step.node, default: 0] += seconds * 1_000_000_000 + attoseconds / 1_000_000_000
            }
        } else {
            for step in steps { step.kernel(step.inputs, step.outputs) }
        }
        var result: [String: Tensor] = [:]
        for (name, value) in outputs {
            switch value {
            case .buffer(let pointer, let shape):
                result[name] = Tensor(shape: shape, floats: Array(UnsafeBufferPointer(start: pointer, count: shape.reduce(1, *))))
            case .constant(let tensor):
                result[name] = tensor
            }
        }
        return result
    }
}

/// A float constant the plan made (not a model weight), in memory the plan owns.
final class ConstantBuffer {
    let pointer: UnsafeMutablePointer<Float>

    init(_ floats: [Float]) {
        pointer = .allocate(capacity: max(floats.count, 1))
        pointer.initialize(from: floats, count: floats.count)
    }

    deinit { pointer.deallocate() }
}
