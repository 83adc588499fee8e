/// Load-time rewrites that leave the results unchanged: batch normalization folded into the convolution before
/// it, Relu or Clip fused into the Conv or Gemm before it, GELU and LayerNorm written out in five and nine nodes
/// made one each, a Linear layer's bias (and a layer scale after it) taken into its MatMul, and the weights of
/// linear layers packed for the AVX-512 product.
struct GraphOptimizer {
    var nodes: [GraphNode]
    var constants: [String: Tensor]
    let graphOutputs: Set<String>

    mutating func optimize() {
        liftConstants()
        foldBatchNormalization()
        fuseActivations()
        fuseGELU()
        fuseLayerNormalization()
        fuseLinearBias()
        packLinearWeights()
    }

    /// The constant weights of Gemm and of MatMul's Linear layers packed once for the AVX-512 product
    /// (``PackedColumns``), which every plan then shares.
    private mutating func packLinearWeights() {
        for index in nodes.indices where nodes[index].inputs.count > 1 {
            guard let weights = constants[nodes[index].inputs[1]] else { continue }
            let c = nodes[index].inputs.count > 2 ? constants[nodes[index].inputs[2]] : nil
            if var gemm = nodes[index].op as? GemmOperator, gemm.takesPackedWeights(weights, constantC: c) {
                gemm.packedWeights = PackedColumns(weights, transposed: gemm.transposeB)
                nodes[index].op = gemm
            } else if var matMul = nodes[index].op as? MatMulOperator {
                matMul.packedWeights = PackedColumns(weights, transposed: false)
                nodes[index].op = matMul
            }
        }
    }

    /// Constant nodes made constants like initializers: exporters write scalars (GELU's √2, LayerNorm's ε) as
    /// Constant nodes, and the patterns below look for constants.
    private mutating func liftConstants() {
        nodes.removeAll { node in
            guard let constant = node.op as? ConstantOperator, node.outputs.count == 1 else { return false }
            constants[node.outputs[0]] = constant.value
            return true
        }
    }

    /// LayerNorm as exports before opset 17 write it over the last axis, ReduceMean → Sub → Pow(2) → ReduceMean →
    /// Add(ε) → Sqrt → Div → Mul(γ) → Add(β), made one LayerNormalization: one pass over the values instead of nine.
    private mutating func fuseLayerNormalization() {
        let counts = readers()
        /// The only reader of `value` when it is a node of this kind.
        func only(_ value: String, _ matches: (GraphNode) -> Bool) -> Int? {
            soleReader(of: value, counts).flatMap { matches(nodes[$0]) ? $0 : nil }
        }
        func binary(_ function: BinaryOperator.Function) -> (GraphNode) -> Bool { { Self.isBinary($0, function) } }
        /// A ReduceMean over the last axis only, keeping it.
        func lastAxisMean(_ node: GraphNode) -> Bool {
            guard let mean = node.op as? MeanOperator, !mean.isGlobalPool, mean.keepDimensions else { return false }
            let axes = mean.axes ?? (node.inputs.count > 1 ? constants[node.inputs[1]]?.integers.map { Int($0) } : nil)
            return axes == [-1]
        }
        for index in nodes.indices where lastAxisMean(nodes[index]) {
            let x = nodes[index].inputs[0], mean = nodes[index].outputs[0]
            guard let sub = only(mean, binary(.subtract)), nodes[sub].inputs == [x, mean] else { continue }
            let centered = nodes[sub].outputs[0]
            let readers = nodes.indices.filter { nodes[$0].inputs.contains(centered) }
            guard counts[centered] == 2, readers.count == 2,
                  let pow = readers.first(where: { binary(.power)(nodes[$0]) }), nodes[pow].inputs.first == centered,
                  nodes[pow].inputs.count == 2, scalar(nodes[pow].inputs[1]) == 2,
                  let divide = readers.first(where: { binary(.divide)(nodes[$0]) }), nodes[divide].inputs.first == centered,
                  let variance = only(nodes[pow].outputs[0], lastAxisMean),
                  let add = only(nodes[variance].outputs[0], binary(.add)), nodes[add].inputs.count == 2,
                  let epsilon = scalar(nodes[add].inputs[1]),
                  let root = only(nodes[add].outputs[0], { ($0.op as? ActivationOperator)?.activation == .sqrt }),
                  nodes[divide].inputs == [centered, nodes[root].outputs[0]],
                  let scale = only(nodes[divide].outputs[0], binary(.multiply)), nodes[scale].inputs.first == nodes[divide].outputs[0],
                  let gamma = nodes[scale].inputs.last, constants[gamma] != nil,
                  let shift = only(nodes[scale].outputs[0], binary(.add)), nodes[shift].inputs.first == nodes[scale].outputs[0],
                  let beta = nodes[shift].inputs.last, constants[beta] != nil
            else { continue }
            let fused = [sub, pow, variance, add, root, divide, scale, shift]
            nodes[index].op = LayerNormalizationOperator(axis: -1, epsilon: epsilon)
            nodes[index].inputs = [x, gamma, beta]
            nodes[index].outputs = [nodes[shift].outputs[0]]
            nodes[index].description += " + Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add (LayerNormalization)"
            for removed in fused.sorted(by: >) { nodes.remove(at: removed) }
            return fuseLayerNormalization()  // indices and readers changed; look again
        }
    }

    /// A Linear layer as torch exports it, MatMul(x, W) then Add(·, b) with W [k, n] and b [n] fixed, made one
    /// MatMul that adds b as it stores; and a per-column scale right after (ConvNeXt's layer scale, Mul by γ [n])
    /// folded into W and b. Two passes over the activations fewer per layer.
    private mutating func fuseLinearBias() {
        let counts = readers()
        func columns(_ name: String, _ n: Int) -> [Float]? {
            guard let tensor = constants[name], tensor.elementType == .float, tensor.count == n,
                  tensor.shape.dropLast().allSatisfy({ $0 == 1 }) else { return nil }
            return tensor.floats
        }
        var index = 0
        while index < nodes.count {
            defer { index += 1 }
            guard nodes[index].op is MatMulOperator, nodes[index].inputs.count == 2,
                  let weights = constants[nodes[index].inputs[1]], weights.elementType == .float, weights.shape.count == 2,
                  let add = soleReader(of: nodes[index].outputs[0], counts), Self.isBinary(nodes[add], .add),
                  let biasName = other(nodes[add], than: nodes[index].outputs[0])
            else { continue }
            let n = weights.shape[1]
            guard var bias = columns(biasName, n) else { continue }
            var output = nodes[add].outputs[0]
            var absorbed = [add]
            var scaledWeights = weights
            if let mul = soleReader(of: output, counts), Self.isBinary(nodes[mul], .multiply),
               let scale = other(nodes[mul], than: output).flatMap({ columns($0, n) }) {
                for row in 0..<weights.shape[0] { for j in 0..<n { scaledWeights.floats[row * n + j] *= scale[j] } }
                for j in 0..<n { bias[j] *= scale[j] }
                output = nodes[mul].outputs[0]
                absorbed.append(mul)
            }
            var weightName = nodes[index].inputs[1]
            if absorbed.count > 1 {
                // Scaled: a weight of its own, the original dropped when nothing else reads it.
                if counts[weightName] == 1 { constants.removeValue(forKey: weightName) }
                weightName = output + "::linear_weight"
                constants[weightName] = scaledWeights
            }
            constants[output + "::linear_bias"] = Tensor(shape: [n], floats: bias)
            nodes[index].inputs = [nodes[index].inputs[0], weightName, output + "::linear_bias"]
            nodes[index].outputs = [output]
            nodes[index].description += absorbed.map { " + " + nodes[$0].description }.joined()
            for removed in absorbed.sorted(by: >) { nodes.remove(at: removed) }
        }
    }

    /// x·0.5·(1 + erf(x/√2)) as torch exports nn.GELU before opset 20, Div → Erf → Add(1) → Mul(x) → Mul(0.5), made
    /// one Gelu: one pass over the values instead of five.
    private mutating func fuseGELU() {
        let counts = readers()
        var index = 0
        while index < nodes.count {
            defer { index += 1 }
            let divide = nodes[index]
            guard Self.isBinary(divide, .divide), divide.inputs.count == 2, let root = scalar(divide.inputs[1]), abs(root - Float(2).squareRoot()) < 1e-5,
                  let erf = soleReader(of: divide.outputs[0], counts), (nodes[erf].op as? ActivationOperator)?.activation == .erf,
                  let add = soleReader(of: nodes[erf].outputs[0], counts), Self.isBinary(nodes[add], .add),
                  other(nodes[add], than: nodes[erf].outputs[0]).flatMap(scalar) == 1,
                  let times = soleReader(of: nodes[add].outputs[0], counts), Self.isBinary(nodes[times], .multiply),
                  other(nodes[times], than: nodes[add].outputs[0]) == divide.inputs[0],
                  let half = soleReader(of: nodes[times].outputs[0], counts), Self.isBinary(nodes[half], .multiply),
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

    /// The value of a float scalar constant.
    private func scalar(_ name: String) -> Float? {
        guard let tensor = constants[name], tensor.elementType == .float, tensor.count == 1 else { return nil }
        return tensor.floats[0]
    }

    /// The other input of a two-input node, when one of them is `value`.
    private func other(_ node: GraphNode, than value: String) -> String? {
        guard node.inputs.count == 2 else { return nil }
        return node.inputs[0] == value ? node.inputs[1] : (node.inputs[1] == value ? node.inputs[0] : nil)
    }

    private static func isBinary(_ node: GraphNode, _ function: BinaryOperator.Function) -> Bool {
        (node.op as? BinaryOperator)?.function == function
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
