/// The logical half of planning: walks the nodes in order, asks each operator for its output shapes and kernel,
/// folds nodes whose inputs are all constant, and records which logical buffers each step reads and writes.
struct PlanBuilder {
    enum Reference {
        case none
        case constant(UnsafePointer<Float>)
        case buffer(Int)

        var logical: Int? { if case .buffer(let index) = self { index } else { nil } }
    }

    struct PlannedStep {
        var node: String
        var kernel: Kernel
        var reads: [Reference]
        var writes: [Int]
    }

    enum GraphOutput {
        case buffer(Int, shape: [Int])
        case constant(Tensor)
    }

    let model: InferenceModel
    private(set) var buffers: [(count: Int, shape: [Int])] = []
    private(set) var steps: [PlannedStep] = []
    private(set) var graphInputBuffers: [String: Int] = [:]
    private(set) var graphOutputs: [(String, GraphOutput)] = []
    /// Buffers that must outlive the run: graph inputs and outputs.
    private(set) var pinned: Set<Int> = []
    private(set) var ownedConstants: [ConstantBuffer] = []
    private var values: [String: (info: ValueInfo, reference: Reference)] = [:]
    private var lastReads: [Int: Int] = [:]

    init(model: InferenceModel) { self.model = model }

    func lastRead(_ logical: Int) -> Int { lastReads[logical] ?? -1 }

    mutating func build(inputs: [String: ValueInfo]) throws(InferenceError) {
        for (name, tensor) in model.constants {
            values[name] = (ValueInfo(constant: tensor), model.store.pointer(name).map { .constant($0) } ?? .none)
        }
        for port in model.inputs {
            guard let info = inputs[port.name] else { throw InferenceError(.invalidInput, "input '\(port.name)' is missing") }
            if let constant = info.constant, constant.elementType != .float {
                values[port.name] = (info, .none)
            } else {
                let logical = newBuffer(info.shape)
                graphInputBuffers[port.name] = logical
                pinned.insert(logical)
                values[port.name] = (ValueInfo(shape: info.shape), .buffer(logical))
            }
        }
        for node in model.nodes {
            do { try plan(node) } catch { throw InferenceError(error.code, "\(node.description): \(error.message)") }
        }
        for port in model.outputs {
            let value = values[port.name]!
            if case .buffer(let logical) = value.reference {
                graphOutputs.append((port.name, .buffer(logical, shape: value.info.shape)))
                pinned.insert(logical)
            } else if let constant = value.info.constant {
                graphOutputs.append((port.name, .constant(constant)))
            }
        }
    }

    private mutating func newBuffer(_ shape: [Int]) -> Int {
        buffers.append((shape.reduce(1, *), shape))
        return buffers.count - 1
    }

    private mutating func plan(_ node: GraphNode) throws(InferenceError) {
        let inputs = node.inputs.map { $0.isEmpty ? nil : values[$0] }
        let infos = inputs.map { $0?.info }
        if let evaluating = node.op as? any ConstantEvaluating, infos.contains(where: { $0 != nil }),
           infos.allSatisfy({ $0 == nil || $0!.constant != nil }) {
            // Known now (shape arithmetic, mostly): evaluated once, whatever the element types.
            let results = try evaluating.evaluate(infos.map { $0?.constant })
            for (index, tensor) in results.enumerated() where index < node.outputs.count && !node.outputs[index].isEmpty {
                values[node.outputs[index]] = (ValueInfo(constant: tensor), tensor.elementType == .float ? .constant(ownedPointer(tensor.floats)) : .none)
            }
            return
        }
        let outputs = try node.op.outputs(for: infos)
        guard outputs.count >= node.outputs.filter({ !$0.isEmpty }).count else {
            throw InferenceError(.unsupportedModel, "has \(node.outputs.count) outputs, only \(outputs.count) are supported")
        }
        let computed = outputs.indices.filter { outputs[$0].info.constant == nil && outputs[$0].aliasOfInput == nil }
        let allConstant = infos.allSatisfy { $0 == nil || $0!.constant != nil }
        var kernel: Kernel?
        if !computed.isEmpty { kernel = try node.op.kernel(inputs: infos, outputs: outputs.map(\.info)) }

        if allConstant, let kernel {
            // Folded now: the outputs become constants.
            let readPointers = inputs.map { input -> UnsafePointer<Float>? in pointer(for: input) }
            let results = computed.map { ConstantBuffer([Float](repeating: 0, count: outputs[$0].info.count)) }
            kernel(readPointers, results.map(\.pointer))
            for (k, index) in computed.enumerated() where index < node.outputs.count && !node.outputs[index].isEmpty {
                let shape = outputs[index].info.shape
                let floats = Array(UnsafeBufferPointer(start: results[k].pointer, count: shape.reduce(1, *)))
                values[node.outputs[index]] = (ValueInfo(constant: Tensor(shape: shape, floats: floats)), .constant(results[k].pointer))
            }
            ownedConstants += results
            defineAliasesAndConstants(node, outputs, inputs)
            return
        }

        var writes: [Int] = []
        for index in computed {
            let logical = newBuffer(outputs[index].info.shape)
            writes.append(logical)
            if index < node.outputs.count && !node.outputs[index].isEmpty {
                values[node.outputs[index]] = (outputs[index].info, .buffer(logical))
            }
        }
        defineAliasesAndConstants(node, outputs, inputs)
        guard let kernel else { return }
        let reads = inputs.map { input -> Reference in
            guard let input, input.info.elementType == .float else { return .none }
            guard case .none = input.reference else { return input.reference }
            return pointer(for: input).map { .constant($0) } ?? .none
        }
        for case .buffer(let logical) in reads { lastReads[logical] = steps.count }
        steps.append(PlannedStep(node: node.description, kernel: kernel, reads: reads, writes: writes))
    }

    /// Outputs that are constants or share an input's buffer.
    private mutating func defineAliasesAndConstants(
        _ node: GraphNode, _ outputs: [OutputInfo], _ inputs: [(info: ValueInfo, reference: Reference)?]
    ) {
        for (index, output) in outputs.enumerated() where index < node.outputs.count && !node.outputs[index].isEmpty {
            if let constant = output.info.constant {
                values[node.outputs[index]] = (output.info, constant.elementType == .float ? .constant(ownedPointer(constant.floats)) : .none)
            } else if let alias = output.aliasOfInput, let source = inputs[alias] {
                // The same buffer under a new name and shape: reads of it count as reads of the source's buffer.
                values[node.outputs[index]] = (output.info, source.reference)
            }
        }
    }

    /// A pointer to a float value, copying constants that have none yet into plan-owned memory.
    private mutating func pointer(for input: (info: ValueInfo, reference: Reference)?) -> UnsafePointer<Float>? {
        guard let input else { return nil }
        switch input.reference {
        case .constant(let pointer): return pointer
        case .buffer: return nil
        case .none:
            guard let constant = input.info.constant, constant.elementType == .float else { return nil }
            return ownedPointer(constant.floats)
        }
    }

    private mutating func ownedPointer(_ floats: [Float]) -> UnsafePointer<Float> {
        let buffer = ConstantBuffer(floats)
        ownedConstants.append(buffer)
        return UnsafePointer(buffer.pointer)
    }
}
