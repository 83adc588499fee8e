/// Runs a model. A session keeps one plan per input shape (batch size), so repeated runs reuse their buffers;
/// it is not thread-safe: each worker thread has its own session over the shared model.
public final class InferenceSession {
    public let model: InferenceModel
    private var plans: [[Int]: ExecutionPlan] = [:]
    private var planOrder: [[Int]] = []
    /// Plans kept at most (one per batch size in practice).
    private let planLimit = 16

    public init(model: InferenceModel) {
        self.model = model
    }

    /// Runs the model on these inputs, by name, and returns every graph output by name.
    public func run(_ inputs: [String: Tensor]) throws(InferenceError) -> [String: Tensor] {
        try plan(for: inputs).run(inputs)
    }

    /// Runs the model `runs` times and returns the time each node took per run, slowest first: where a model
    /// spends its time.
    public func profile(_ inputs: [String: Tensor], runs: Int = 10) throws(InferenceError) -> [(node: String, milliseconds: Double)] {
        let plan = try plan(for: inputs)
        var timings: [String: Int64] = [:]
        for _ in 0..<max(runs, 1) { _ = plan.run(inputs, timings: &timings) }
        return timings.map { ($0.key, Double($0.value) / 1e6 / Double(max(runs, 1))) }.sorted { $0.milliseconds > $1.milliseconds }
    }

    private func plan(for inputs: [String: Tensor]) throws(InferenceError) -> ExecutionPlan {
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
        return plan
    }
}
