/// Identity, and Dropout in inference mode: the output is the input (same buffer). Dropout's optional mask
/// output is all true.
struct PassThroughOperator: Operator {
    var isDropout = false

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try required(inputs, 0, "input")
        if isDropout, inputs.count > 2, let training = inputs[2] {
            guard let flag = training.constant, flag.integers.allSatisfy({ $0 == 0 }) else {
                throw InferenceError(.unsupportedModel, "training mode is not supported, only inference")
            }
        }
        var result = [OutputInfo(info: x, aliasOfInput: 0)]
        if isDropout {
            let mask = Tensor(shape: x.shape, integers: Array(repeating: 1, count: x.count), elementType: .bool)
            result.append(OutputInfo(info: ValueInfo(constant: mask)))
        }
        return result
    }
}

/// Flatten: [d0, ..., dn] to [d0 ⋯ d(axis-1), d(axis) ⋯ dn], sharing the buffer.
struct FlattenOperator: Operator {
    let axis: Int

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try required(inputs, 0, "input")
        let axis = axis < 0 ? axis + x.shape.count : axis
        guard (0...x.shape.count).contains(axis) else { throw shapeError("axis \(self.axis) is out of range for rank \(x.shape.count)") }
        let shape = [x.shape[..<axis].reduce(1, *), x.shape[axis...].reduce(1, *)]
        return [OutputInfo(info: ValueInfo(shape: shape, elementType: x.elementType, constant: x.constant.map { reshaped($0, shape) }), aliasOfInput: 0)]
    }
}

/// Reshape to a fixed shape (0 copies a dimension unless `allowzero`, -1 is inferred), sharing the buffer.
struct ReshapeOperator: Operator {
    let allowZero: Bool

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try required(inputs, 0, "data")
        guard var shape = try constantIntegers(inputs, 1, "shape") else { throw shapeError("input 1 (shape) is missing") }
        for (axis, dimension) in shape.enumerated() where dimension == 0 && !allowZero {
            guard axis < x.shape.count else { throw shapeError("dimension \(axis) copies a dimension \(x.shape) lacks") }
            shape[axis] = x.shape[axis]
        }
        let inferred = shape.indices.filter { shape[$0] == -1 }
        guard inferred.count <= 1, shape.allSatisfy({ $0 >= -1 }) else { throw shapeError("shape \(shape) is not valid") }
        if let axis = inferred.first {
            let known = shape.filter { $0 != -1 }.reduce(1, *)
            guard known > 0, x.count % known == 0 else { throw shapeError("cannot reshape \(x.shape) to \(shape)") }
            shape[axis] = x.count / known
        }
        guard shape.reduce(1, *) == x.count else { throw shapeError("cannot reshape \(x.shape) to \(shape)") }
        return [OutputInfo(info: ValueInfo(shape: shape, elementType: x.elementType, constant: x.constant.map { reshaped($0, shape) }), aliasOfInput: 0)]
    }
}

private func reshaped(_ tensor: Tensor, _ shape: [Int]) -> Tensor {
    var tensor = tensor
    tensor.shape = shape
    return tensor
}

/// Transpose by a permutation (reversed axes by default).
struct TransposeOperator: ConstantEvaluating {
    let permutation: [Int]?

    func evaluate(_ inputs: [Tensor?]) throws(InferenceError) -> [Tensor] {
        guard let x = inputs.first ?? nil else { throw shapeError("input 0 (data) is missing") }
        let permutation = permutation ?? Array(x.shape.indices.reversed())
        guard permutation.sorted() == Array(x.shape.indices) else {
            throw shapeError("perm \(permutation) is not a permutation of rank \(x.shape.count)")
        }
        let strides = rowMajorStrides(x.shape)
        let shape = permutation.map { x.shape[$0] }
        return [x.gathered(stridedSources(shape: shape, strides: permutation.map { strides[$0] }), shape: shape)]
    }

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try requiredFloat(inputs, 0, "data")
        let permutation = permutation ?? Array(x.shape.indices.reversed())
        guard permutation.sorted() == Array(x.shape.indices) else {
            throw shapeError("perm \(permutation) is not a permutation of rank \(x.shape.count)")
        }
        return [.float(permutation.map { x.shape[$0] })]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let inputShape = inputs[0]!.shape
        let permutation = permutation ?? Array(inputShape.indices.reversed())
        let outputShape = outputs[0].shape
        guard !outputShape.isEmpty else { return { inputs, outputs in outputs[0][0] = inputs[0]![0] } }
        let inputStrides = rowMajorStrides(inputShape)
        let strides = [permutation.map { inputStrides[$0] }, rowMajorStrides(outputShape)]
        let inner = outputShape[outputShape.count - 1], innerStride = strides[0][outputShape.count - 1]
        if innerStride == 1 && outputShape.count > 1 {
            // The last axis stays last (a ViT's heads split from Q, K and V): each output row is a row of the input,
            // where it starts known at plan time, copied whole (0.30 ms for [8, 197, 3, 3, 64], where the loop
            // below, with its stride unknown, took 1.07 ms).
            let rowStarts = stridedSources(shape: Array(outputShape.dropLast()), strides: Array(strides[0].dropLast()))
            return { inputs, outputs in
                let x = inputs[0]!, y = outputs[0]
                rowStarts.withUnsafeBufferPointer { starts in
                    for (row, start) in starts.enumerated() { (y + row * inner).update(from: x + start, count: inner) }
                }
            }
        }
        return { inputs, outputs in
            let x = inputs[0]!, y = outputs[0]
            forEachRow(of: outputShape, strides: strides) { offsets in
                let px = x + offsets[0], py = y + offsets[1]
                for i in 0..<inner { py[i] = px[i * innerStride] }
            }
        }
    }
}

/// Concat along an axis: floats at run time, any element type at plan time (shapes put together).
struct ConcatOperator: ConstantEvaluating {
    let axis: Int

    /// The shape of the parts put together, and the axis made non-negative.
    private func joined(_ shapes: [[Int]]) throws(InferenceError) -> (shape: [Int], axis: Int) {
        guard let first = shapes.first else { throw shapeError("needs at least one input") }
        let axis = try normalizedAxis(axis, rank: first.count)
        var shape = first
        shape[axis] = 0
        for part in shapes {
            var expected = first
            expected[axis] = part.count == expected.count ? part[axis] : -1
            guard part == expected else { throw shapeError("shapes \(shapes) do not concatenate on axis \(axis)") }
            shape[axis] += part[axis]
        }
        return (shape, axis)
    }

    func evaluate(_ inputs: [Tensor?]) throws(InferenceError) -> [Tensor] {
        let parts = inputs.compactMap { $0 }
        guard parts.count == inputs.count else { throw shapeError("an input is omitted") }
        let (shape, axis) = try joined(parts.map(\.shape))
        let outer = shape[..<axis].reduce(1, *)
        let isFloat = parts.contains { $0.elementType == .float }
        let values = parts.map { isFloat ? $0.floatValues : [] }
        var floats: [Float] = [], integers: [Int64] = []
        for o in 0..<outer {
            for (part, partFloats) in zip(parts, values) {
                let row = part.shape[axis...].reduce(1, *)
                if isFloat { floats += partFloats[(o * row)..<((o + 1) * row)] } else { integers += part.integers[(o * row)..<((o + 1) * row)] }
            }
        }
        return [isFloat ? Tensor(shape: shape, floats: floats) : Tensor(shape: shape, integers: integers, elementType: parts[0].elementType)]
    }

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let parts = try inputs.indices.map { index throws(InferenceError) in try requiredFloat(inputs, index, "inputs") }
        return [.float(try joined(parts.map(\.shape)).shape)]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let shape = outputs[0].shape
        let axis = try normalizedAxis(axis, rank: shape.count)
        let outer = shape[..<axis].reduce(1, *)
        let rows = inputs.map { $0!.shape[axis...].reduce(1, *) }
        let outputRow = rows.reduce(0, +)
        return { inputs, outputs in
            var start = 0
            for (part, row) in zip(inputs, rows) {
                for o in 0..<outer { (outputs[0] + o * outputRow + start).update(from: part! + o * row, count: row) }
                start += row
            }
        }
    }
}

/// Pad, in constant, reflect or edge mode (pads may be negative, which crops).
struct PadOperator: Operator {
    enum Mode: String, Sendable { case constant, reflect, edge }
    let mode: Mode
    /// Before opset 11, pads and value are attributes.
    let attributePads: [Int]?
    let attributeValue: Float

    func pads(_ inputs: [ValueInfo?], rank: Int) throws(InferenceError) -> [Int] {
        var pads = attributePads ?? []
        if attributePads == nil, let fromInput = try constantIntegers(inputs, 1, "pads") { pads = fromInput }
        if let axes = try constantIntegers(inputs, 3, "axes") {
            var full = Array(repeating: 0, count: 2 * rank)
            for (k, axis) in axes.enumerated() {
                let axis = try normalizedAxis(axis, rank: rank)
                full[axis] = pads[k]
                full[axis + rank] = pads[k + axes.count]
            }
            pads = full
        }
        guard pads.count == 2 * rank else { throw shapeError("pads \(pads) do not have 2 × \(rank) values") }
        return pads
    }

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try requiredFloat(inputs, 0, "data")
        let rank = x.shape.count
        let pads = try pads(inputs, rank: rank)
        let shape = x.shape.indices.map { x.shape[$0] + pads[$0] + pads[$0 + rank] }
        guard shape.allSatisfy({ $0 >= 0 }) else { throw shapeError("pads \(pads) crop \(x.shape) below zero") }
        if mode != .constant {
            for axis in x.shape.indices where x.shape[axis] == 0 && shape[axis] > 0 {
                throw shapeError("\(mode) padding of an empty axis")
            }
        }
        return [.float(shape)]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let inputShape = inputs[0]!.shape, outputShape = outputs[0].shape
        let rank = inputShape.count
        let pads = try pads(inputs, rank: rank)
        let fixedValue = attributePads == nil ? nil : attributeValue
        if attributePads == nil, inputs.count > 2, let given = inputs[2], given.elementType != .float || given.count != 1 {
            throw InferenceError(.unsupportedModel, "input 2 (constant_value) must be a float scalar")
        }
        let mode = mode
        let inputStrides = rowMajorStrides(inputShape)
        let total = outputShape.reduce(1, *)
        guard rank > 0, !outputShape.contains(0) else { return { _, _ in } }
        /// The input coordinate an output coordinate reads along an axis, nil for the constant.
        func source(_ o: Int, axis: Int) -> Int? {
            let size = inputShape[axis]
            var i = o - pads[axis]
            if (0..<size).contains(i) { return i }
            switch mode {
            case .constant: return nil
            case .edge: return min(max(i, 0), size - 1)
            case .reflect:
                guard size > 1 else { return 0 }
                let period = 2 * (size - 1)
                i = ((i % period) + period) % period
                return i < size ? i : period - i
            }
        }
        let sources = (0..<rank).map { axis in (0..<outputShape[axis]).map { source($0, axis: axis) } }
        return { inputs, outputs in
            let x = inputs[0]!, y = outputs[0]
            let value = fixedValue ?? (inputs.count > 2 ? inputs[2]?.pointee ?? 0 : 0)
            var index = Array(repeating: 0, count: rank)
            for position in 0..<total {
                var offset = 0
                var inside = true
                for axis in 0..<rank {
                    guard let s = sources[axis][index[axis]] else { inside = false; break }
                    offset += s * inputStrides[axis]
                }
                y[position] = inside ? x[offset] : value
                var axis = rank - 1
                while axis >= 0 {
                    index[axis] += 1
                    if index[axis] < outputShape[axis] { break }
                    index[axis] = 0
                    axis -= 1
                }
            }
        }
    }
}

/// Constant: a fixed tensor from its attribute.
struct ConstantOperator: Operator {
    let value: Tensor

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        [OutputInfo(info: ValueInfo(constant: value))]
    }
}
