import CInferenceKernels

/// LayerNormalization (opset 17): each row of the dimensions from `axis` on is normalized to mean 0 and variance
/// 1, then scaled and shifted (Scale and B broadcast to the row). Transformers' and ConvNeXt's normalization;
/// GraphOptimizer makes the ReduceMean/Sub/Pow/Sqrt/Div form of exports before opset 17 one of these.
struct LayerNormalizationOperator: Operator {
    let axis: Int
    let epsilon: Float

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try requiredFloat(inputs, 0, "X")
        let axis = try normalizedAxis(axis, rank: x.shape.count)
        let row = Array(x.shape[axis...])
        for (index, name) in [(1, "Scale"), (2, "B")] where index < inputs.count {
            guard let parameter = inputs[index] else { continue }
            guard parameter.elementType == .float, Broadcasting.shape(parameter.shape, row) == row else {
                throw shapeError("\(name) \(parameter.shape) does not broadcast to the normalized shape \(row)")
            }
        }
        // Y, and each row's mean and 1/√(variance + ε), shaped as X with the normalized dimensions 1.
        let statistics = Array(x.shape[..<axis]) + Array(repeating: 1, count: x.shape.count - axis)
        return [.float(x.shape), .float(statistics), .float(statistics)]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let shape = outputs[0].shape
        let axis = try normalizedAxis(axis, rank: shape.count)
        let length = shape[axis...].reduce(1, *), rows = shape[..<axis].reduce(1, *)
        let row = Array(shape[axis...])
        // Scale and B as full rows, fixed at plan time when they are constants (they are weights).
        func expanded(_ index: Int, _ fallback: Float) -> (constant: [Float]?, sources: [Int]?) {
            guard index < inputs.count, let parameter = inputs[index] else { return (Array(repeating: fallback, count: length), nil) }
            let sources = broadcastSources(of: parameter.shape, in: row)
            if let constant = parameter.constant { return (sources.map { constant.floats[$0] }, nil) }
            return (nil, sources)
        }
        let (scale, scaleSources) = expanded(1, 1), (bias, biasSources) = expanded(2, 0)
        let epsilon = epsilon
        return { inputs, outputs in
            let x = inputs[0]!, y = outputs[0]
            let gamma = scale ?? scaleSources!.map { inputs[1]![$0] }
            let beta = bias ?? biasSources!.map { inputs[2]![$0] }
            gamma.withUnsafeBufferPointer { gamma in
                beta.withUnsafeBufferPointer { beta in
                    pg_layer_norm_rows(x, y, rows, length, gamma.baseAddress, beta.baseAddress, epsilon,
                                       outputs.count == 3 ? outputs[1] : nil, outputs.count == 3 ? outputs[2] : nil)
                }
            }
        }
    }
}
