/// Runs a model. A session keeps one plan per input shape (batch size), so repeated runs reuse their buffers;
/// it is not thread-safe: each worker thread has its own session over the shared model.
public final class InferenceSession {
    public let model: InferenceModel
    private var plans: [[Int]: ExecutionPlan] = [:]
    private var planOrder: [[Int]] = []
    /// Plans kept at most (one per batch size in practice).
    private let planLimit = 16

    public convenience init(model: InferenceModel) {
        self.init(model: model, subBatchBudget: SubBatching.budget)
    }

    /// A session whose sub-batches keep their largest value within `subBatchBudget` bytes instead of the machine's
    /// budget (a quarter of its L3): for tests, whose batches are then as small on every machine.
    init(model: InferenceModel, subBatchBudget: Int) {
        self.model = model
        self.subBatchBudget = subBatchBudget
        batchIsOpen = model.inputs.allSatisfy { $0.shape.map { $0.first == .some(nil) } ?? false }
    }

    /// Activation bytes a sub-batch's largest value may take (``SubBatching/budget``).
    private let subBatchBudget: Int

    /// Input shapes (plan keys) whose batch runs as sub-batches, and those found not to (their outputs differed).
    private var splitting: [[Int]: Bool] = [:]
    /// Whether every input leaves its leading dimension (the batch) open: only such a batch can be cut.
    private let batchIsOpen: Bool

    /// Runs the model on these inputs, by name, and returns every graph output by name. A batch whose activations
    /// would not stay in cache runs as smaller batches, one after another (``SubBatching``); the first time for each
    /// shape, it runs whole too, and keeps running whole if the answers differ (a model that mixes its images).
    public func run(_ inputs: [String: Tensor]) throws(InferenceError) -> [String: Tensor] {
        let (whole, key) = try plan(for: inputs)
        guard batchIsOpen, let batch = SubBatching.batch(of: inputs), splitting[key] != false else { return whole.run(inputs) }
        let size = SubBatching.size(batch: batch, largestValueBytes: whole.largestValueBytes, weightBytes: model.weightBytes,
                                   budget: subBatchBudget)
        guard size < batch else { return whole.run(inputs) }
        var parts: [[String: Tensor]] = []
        for start in stride(from: 0, to: batch, by: size) {
            let part = SubBatching.slice(inputs, start..<min(start + size, batch))
            // A sub-batch the model cannot plan (it is not refused whole): the batch runs whole from now on.
            guard let planned = try? plan(for: part).plan else {
                splitting[key] = false
                return whole.run(inputs)
            }
            parts.append(planned.run(part))
        }
        let joined = SubBatching.join(parts, batch: batch)
        if splitting[key] == nil {
            let reference = whole.run(inputs)
            splitting[key] = joined.map { SubBatching.agree($0, reference) } ?? false
            if splitting[key] == false { return reference }
        }
        return joined ?? whole.run(inputs)
    }

    /// Runs the model `runs` times and returns the time each node took per run, slowest first: where a model
    /// spends its time.
    public func profile(_ inputs: [String: Tensor], runs: Int = 10) throws(InferenceError) -> [(node: String, milliseconds: Double)] {
        let plan = try plan(for: inputs).plan
        var timings: [String: Int64] = [:]
        for _ in 0..<max(runs, 1) { _ = plan.run(inputs, timings: &timings) }
        return timings.map { ($0.key, Double($0.value) / 1e6 / Double(max(runs, 1))) }.sorted { $0.milliseconds > $1.milliseconds }
    }

    private func plan(for inputs: [String: Tensor]) throws(InferenceError) -> (plan: ExecutionPlan, key: [Int]) {
        var key: [Int] = []
        var infos: [String: ValueInfo] = [:]
        for port in model.inputs {
            guard let tensor = inputs[port.name] else { throw InferenceError(.invalidInput, "input '\(port.name)' is missing") }
            guard tensor.elementType == port.elementType else {
                throw InferenceError(.invalidInput, "input '\(port.name)' is \(tensor.elementType), the model expects \(port.elementType)")
            }
            if let declared = port.shape {
                let fits = declared.count == tensor.shape.count && zip(declared, tensor.shape).allSatisfy { $0 == nil || $0 == $1 }
                guard fits else {
                    let expected = declared.map { $0.map(String.init) ?? "?" }.joined(separator: ", ")
                    throw InferenceError(.invalidInput, "input '\(port.name)' has shape \(tensor.shape), the model expects [\(expected)]")
                }
            }
            key += [tensor.shape.count] + tensor.shape
            if tensor.elementType == .float {
                infos[port.name] = ValueInfo(shape: tensor.shape)
            } else {
                infos[port.name] = ValueInfo(constant: tensor)
                key += tensor.integers.map { Int($0) }
            }
        }
        if let unknown = inputs.keys.first(where: { name in !model.inputs.contains { $0.name == name } }) {
            throw InferenceError(.invalidInput, "the model has no input '\(unknown)'")
        }
        let plan: ExecutionPlan
        if let cached = plans[key] {
            plan = cached
        } else {
            plan = try ExecutionPlan(model: model, inputs: infos)
            if plans.count >= planLimit { plans[planOrder.removeFirst()] = nil }
            plans[key] = plan
            planOrder.append(key)
        }
        return (plan, key)
    }
}
