import CInferenceKernels
import Foundation

/// Softmax along an axis. Before opset 13 the input is read as 2-D, [d0 ⋯ d(axis-1), d(axis) ⋯ dn], and the
/// softmax taken over each row.
struct SoftmaxOperator: Operator {
    let axis: Int
    let flattensToRows: Bool

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try requiredFloat(inputs, 0, "input")
        _ = try normalizedAxis(axis, rank: x.shape.count)
        return [.float(x.shape)]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let shape = outputs[0].shape
        let axis = try normalizedAxis(axis, rank: shape.count)
        let outer = shape[..<axis].reduce(1, *)
        let length = flattensToRows ? shape[axis...].reduce(1, *) : shape[axis]
        let inner = flattensToRows ? 1 : shape[(axis + 1)...].reduce(1, *)
        if inner == 1 {
            // Rows along the last axis, the attention case: vectorized exponentials.
            return { inputs, outputs in pg_softmax_rows(inputs[0]!, outputs[0], outer, length) }
        }
        return { inputs, outputs in
            let x = inputs[0]!, y = outputs[0]
            for o in 0..<outer {
                for i in 0..<inner {
                    let base = o * length * inner + i
                    var largest = -Float.infinity
                    for k in 0..<length { largest = max(largest, x[base + k * inner]) }
                    var sum: Float = 0
                    for k in 0..<length {
                        let e = exp(x[base + k * inner] - largest)
                        y[base + k * inner] = e
                        sum += e
                    }
                    for k in 0..<length { y[base + k * inner] /= sum }
                }
            }
        }
    }
}

/// ReduceMean over some axes (all by default), keeping them as 1s or dropping them. GlobalAveragePool is the
/// mean over every axis after the first two, kept.
struct MeanOperator: Operator {
    /// Axes from the attribute (before opset 18), nil for all or for the optional input.
    let axes: [Int]?
    let keepDimensions: Bool
    let noopWithEmptyAxes: Bool
    let isGlobalPool: Bool

    static let globalAveragePool = MeanOperator(axes: nil, keepDimensions: true, noopWithEmptyAxes: false, isGlobalPool: true)

    private func reducedAxes(_ inputs: [ValueInfo?], rank: Int) throws(InferenceError) -> [Int] {
        if isGlobalPool {
            guard rank >= 3 else { throw shapeError("needs an input of rank 3 or more, [N, C, ...]") }
            return Array(2..<rank)
        }
        var given = axes ?? []
        if axes == nil, let fromInput = try constantIntegers(inputs, 1, "axes") { given = fromInput }
        if given.isEmpty { return noopWithEmptyAxes ? [] : Array(0..<rank) }
        var result: [Int] = []
        for axis in given { result.append(try normalizedAxis(axis, rank: rank)) }
        return result
    }

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try requiredFloat(inputs, 0, "data")
        let axes = Set(try reducedAxes(inputs, rank: x.shape.count))
        let shape = x.shape.indices.compactMap { axis in axes.contains(axis) ? (keepDimensions ? 1 : nil) : x.shape[axis] }
        return [.float(shape)]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let shape = inputs[0]!.shape
        let axes = Set(try reducedAxes(inputs, rank: shape.count))
        let kept = shape.indices.map { axes.contains($0) ? 1 : shape[$0] }
        let outputCount = kept.reduce(1, *)
        let inputCount = shape.reduce(1, *)
        let divisor = Float(max(inputCount, 1)) / Float(max(outputCount, 1))
        guard !shape.isEmpty else { return { inputs, outputs in outputs[0][0] = inputs[0]![0] } }
        if let first = axes.min(), axes == Set(first..<shape.count) {
            // The last axes (GlobalAveragePool, a mean over tokens or pixels): one mean per contiguous row.
            let length = shape[first...].reduce(1, *)
            return { inputs, outputs in pg_mean_rows(inputs[0]!, outputs[0], outputCount, length) }
        }
        let strides = [rowMajorStrides(shape), Broadcasting.strides(of: kept, in: shape)]
        let inner = shape[shape.count - 1], innerStride = strides[1][shape.count - 1]
        return { inputs, outputs in
            let x = inputs[0]!, y = outputs[0]
            y.update(repeating: 0, count: outputCount)
            forEachRow(of: shape, strides: strides) { offsets in
                let px = x + offsets[0], py = y + offsets[1]
                if innerStride == 0 {
                    var sum: Float = 0
                    for i in 0..<inner { sum += px[i] }
                    py[0] += sum
                } else {
                    for i in 0..<inner { py[i] += px[i] }
                }
            }
            for i in 0..<outputCount { y[i] /= divisor }
        }
    }
}

/// BatchNormalization in inference mode: per channel, scale · (x − mean) / √(var + ε) + bias. Usually folded
/// into the convolution before it at load time.
struct BatchNormalizationOperator: Operator {
    let epsilon: Float

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try requiredFloat(inputs, 0, "X")
        guard x.shape.count >= 2 else { throw shapeError("needs an input of rank 2 or more, [N, C, ...]") }
        for (index, name) in [(1, "scale"), (2, "B"), (3, "input_mean"), (4, "input_var")] {
            let parameter = try requiredFloat(inputs, index, name)
            guard parameter.shape == [x.shape[1]] else { throw shapeError("\(name) has shape \(parameter.shape), not [\(x.shape[1])]") }
        }
        return [.float(x.shape)]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let shape = outputs[0].shape
        let batch = shape[0], channels = shape[1], spatial = shape[2...].reduce(1, *)
        let epsilon = epsilon
        return { inputs, outputs in
            let x = inputs[0]!, scale = inputs[1]!, bias = inputs[2]!, mean = inputs[3]!, variance = inputs[4]!
            for c in 0..<channels {
                let a = scale[c] / (variance[c] + epsilon).squareRoot()
                let b = bias[c] - a * mean[c]
                for n in 0..<batch {
                    let offset = (n * channels + c) * spatial
                    for i in 0..<spatial { outputs[0][offset + i] = a * x[offset + i] + b }
                }
            }
        }
    }

    /// The per-channel factors (a, b) of y = a·x + b, for folding into a convolution.
    static func factors(scale: [Float], bias: [Float], mean: [Float], variance: [Float], epsilon: Float) -> (a: [Float], b: [Float]) {
        let a = scale.indices.map { scale[$0] / (variance[$0] + epsilon).squareRoot() }
        let b = scale.indices.map { bias[$0] - a[$0] * mean[$0] }
        return (a, b)
    }
}
