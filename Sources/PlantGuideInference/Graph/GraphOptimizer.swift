/// Load-time rewrites that leave the results unchanged: batch normalization folded into the convolution before
/// it, Relu or Clip fused into the Conv or Gemm before it, and GELU written out in five nodes made one.
struct GraphOptimizer {
    var nodes: [GraphNode]
    var constants: [String: Tensor]
    let graphOutputs: Set<String>

    mutating func optimize() {
        foldBatchNormalization()
        fuseActivations()
        fuseGELU()
    }

    /// x·0.5·(1 + erf(x/√2)) as torch exports nn.GELU before opset 20, Div → Erf → Add(1) → Mul(x) → Mul(0.5), made
    /// one Gelu: one pass over the values instead of five.
    private mutating func fuseGELU() {
        let counts = readers()
        func scalar(_ name: String) -> Float? {
            guard let tensor = constants[name], tensor.elementType == .float, tensor.count == 1 else { return nil }
            return tensor.floats[0]
        }
        /// The other input of a two-input node, when one of them is `value`.
        func other(_ node: GraphNode, than value: String) -> String? {
            guard node.inputs.count == 2 else { return nil }
            return node.inputs[0] == value ? node.inputs[1] : (node.inputs[1] == value ? node.inputs[0] : nil)
        }
        func binary(_ node: GraphNode, _ function: BinaryOperator.Function) -> Bool {
            (node.op as? BinaryOperator)?.function == function
        }
        var index = 0
        while index < nodes.count {
            defer { index += 1 }
            let divide = nodes[index]
            guard binary(divide, .divide), divide.inputs.count == 2, let root = scalar(divide.inputs[1]), abs(root - Float(2).squareRoot()) < 1e-5,
                  let erf = soleReader(of: divide.outputs[0], counts), (nodes[erf].op as? ActivationOperator)?.activation == .erf,
                  let add = soleReader(of: nodes[erf].outputs[0], counts), binary(nodes[add], .add),
                  other(nodes[add], than: nodes[erf].outputs[0]).flatMap(scalar) == 1,
                  let times = soleReader(of: nodes[add].outputs[0], counts), binary(nodes[times], .multiply),
                  other(nodes[times], than: nodes[add].outputs[0]) == divide.inputs[0],
                  let half = soleReader(of: nodes[times].outputs[0], counts), binary(nodes[half], .multiply),
                  other(nodes[half], than: nodes[times].outputs[0]).flatMap(scalar) == 0.5
            else { continue }
            let output = nodes[half].outputs[0]
            nodes[index].op = ActivationOperator(.gelu(tanhApproximation: false))
            nodes[index].inputs = [divide.inputs[0]]
            nodes[index].outputs = [output]
            nodes[index].description += " + Erf, Add, Mul, Mul (GELU)"
            for removed in [erf, add, times, half].sorted(by: >) { nodes.remove(at: removed) }
            return fuseGELU()  // readers changed; count again
        }
    }

    /// How many nodes read each value, graph outputs counting as readers.
    private func readers() -> [String: Int] {
        var counts: [String: Int] = [:]
        for node in nodes { for input in node.inputs where !input.isEmpty { counts[input, default: 0] += 1 } }
        for output in graphOutputs { counts[output, default: 0] += 1 }
        return counts
    }

    /// The index of the only node reading `value`, when exactly one node does and it is not a graph output.
    private func soleReader(of value: String, _ readers: [String: Int]) -> Int? {
        guard readers[value] == 1, !graphOutputs.contains(value) else { return nil }
        return nodes.firstIndex { $0.inputs.contains(value) }
    }

    // Each pass counts readers once: merging a node into the one before it renames that node's output to the
    // merged node's, whose readers were already counted.

    private mutating func foldBatchNormalization() {
        let counts = readers()
        var index = 0
        while index < nodes.count {
            defer { index += 1 }
            guard nodes[index].op is ConvOperator,
                  let next = soleReader(of: nodes[index].outputs[0], counts),
                  let norm = nodes[next].op as? BatchNormalizationOperator,
                  nodes[next].inputs.count == 5, nodes[next].inputs[0] == nodes[index].outputs[0],
                  let weights = constants[nodes[index].inputs[1]], weights.elementType == .float
            else { continue }
            let filters = weights.shape[0]
            let parameters = nodes[next].inputs[1...4].compactMap { constants[$0]?.floats }
            guard parameters.count == 4, parameters.allSatisfy({ $0.count == filters }) else { continue }
            let bias = nodes[index].inputs.count > 2 && !nodes[index].inputs[2].isEmpty ? constants[nodes[index].inputs[2]]?.floats : nil
            if nodes[index].inputs.count > 2 && !nodes[index].inputs[2].isEmpty && bias == nil { continue }

            let (a, b) = BatchNormalizationOperator.factors(
                scale: parameters[0], bias: parameters[1], mean: parameters[2], variance: parameters[3], epsilon: norm.epsilon)
            let perFilter = weights.count / max(filters, 1)
            var folded = weights.floats
            for m in 0..<filters { for i in 0..<perFilter { folded[m * perFilter + i] *= a[m] } }
            let foldedBias = (0..<filters).map { m in (bias?[m] ?? 0) * a[m] + b[m] }

            let output = nodes[next].outputs[0]
            constants[output + "::folded_weight"] = Tensor(shape: weights.shape, floats: folded)
            constants[output + "::folded_bias"] = Tensor(shape: [filters], floats: foldedBias)
            nodes[index].inputs = [nodes[index].inputs[0], output + "::folded_weight", output + "::folded_bias"]
            nodes[index].outputs = [output]
            nodes[index].description += " + " + nodes[next].description
            nodes.remove(at: next)
        }
    }

    private mutating func fuseActivations() {
        let counts = readers()
        var index = 0
        while index < nodes.count {
            defer { index += 1 }
            guard nodes[index].op is ConvOperator || nodes[index].op is GemmOperator,
                  let next = soleReader(of: nodes[index].outputs[0], counts),
                  nodes[next].inputs.first == nodes[index].outputs[0],
                  let activation = fusibleActivation(nodes[next])
            else { continue }
            if var conv = nodes[index].op as? ConvOperator, conv.activation == .identity {
                conv.activation = activation
                nodes[index].op = conv
            } else if var gemm = nodes[index].op as? GemmOperator, gemm.activation == .identity {
                gemm.activation = activation
                nodes[index].op = gemm
            } else {
                continue
            }
            nodes[index].outputs = [nodes[next].outputs[0]]
            nodes[index].description += " + " + nodes[next].description
            nodes.remove(at: next)
        }
    }

    /// Relu, or Clip with fixed bounds.
    private func fusibleActivation(_ node: GraphNode) -> Activation? {
        guard let op = node.op as? ActivationOperator else { return nil }
        switch op.activation {
        case .relu where !op.boundsFromInputs:
            return .relu
        case .clip where !op.boundsFromInputs:
            return op.activation
        case .identity where op.boundsFromInputs:
            func bound(_ index: Int) -> Float?? {
                guard index < node.inputs.count, !node.inputs[index].isEmpty else { return .some(nil) }
                guard let tensor = constants[node.inputs[index]], tensor.elementType == .float, tensor.count == 1 else { return nil }
                return .some(tensor.floats[0])
            }
            guard let low = bound(1), let high = bound(2) else { return nil }
            return .clip(min: low ?? -.greatestFiniteMagnitude, max: high ?? .greatestFiniteMagnitude)
        default:
            return nil
        }
    }
}
