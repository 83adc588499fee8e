/// Unsqueeze: inserts dimensions of 1 (axes from an attribute before opset 13, an input since), sharing the buffer.
struct UnsqueezeOperator: Operator {
    let attributeAxes: [Int]?

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try required(inputs, 0, "data")
        let given = try attributeAxes == nil ? constantIntegers(inputs, 1, "axes") : attributeAxes
        guard let axes = given else { throw shapeError("axes are missing") }
        let rank = x.shape.count + axes.count
        var normalized = Set<Int>()
        for axis in axes { normalized.insert(try normalizedAxis(axis, rank: rank)) }
        guard normalized.count == axes.count else { throw shapeError("axes \(axes) repeat an axis") }
        var dimensions = x.shape.makeIterator()
        let shape = (0..<rank).map { normalized.contains($0) ? 1 : dimensions.next()! }
        return [aliased(x, shape)]
    }
}

/// Squeeze: removes dimensions of 1 (the given axes, or all), sharing the buffer.
struct SqueezeOperator: Operator {
    let attributeAxes: [Int]?

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try required(inputs, 0, "data")
        let given = try attributeAxes == nil ? constantIntegers(inputs, 1, "axes") : attributeAxes
        var removed = Set<Int>()
        for axis in given ?? x.shape.indices.filter({ x.shape[$0] == 1 }) {
            let axis = try normalizedAxis(axis, rank: x.shape.count)
            guard x.shape[axis] == 1 else { throw shapeError("axis \(axis) of \(x.shape) is not 1") }
            removed.insert(axis)
        }
        return [aliased(x, x.shape.indices.filter { !removed.contains($0) }.map { x.shape[$0] })]
    }
}

/// The input under a new shape, same buffer; a known value keeps being known.
private func aliased(_ x: ValueInfo, _ shape: [Int]) -> OutputInfo {
    var constant = x.constant
    constant?.shape = shape
    return OutputInfo(info: ValueInfo(shape: shape, elementType: x.elementType, constant: constant), aliasOfInput: 0)
}

/// An operator that only moves elements: each output element copies one input element, by a map fixed at plan
/// time. Runs on floats, and on any element type when the input is known at plan time.
protocol ElementMoving: ConstantEvaluating {
    /// For each output, its shape and, for each of its elements, the input element it copies.
    func sources(_ inputs: [ValueInfo?]) throws(InferenceError) -> [(shape: [Int], sources: [Int])]
}

extension ElementMoving {
    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        _ = try requiredFloat(inputs, 0, "data")
        return try sources(inputs).map { .float($0.shape) }
    }

    func evaluate(_ inputs: [Tensor?]) throws(InferenceError) -> [Tensor] {
        guard let data = inputs.first ?? nil else { throw shapeError("input 0 (data) is missing") }
        return try sources(inputs.map { $0.map(ValueInfo.init(constant:)) }).map { data.gathered($0.sources, shape: $0.shape) }
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let moves = try sources(inputs).map { ElementMoves($0.sources) }
        return { inputs, outputs in
            for (move, y) in zip(moves, outputs) { move.apply(inputs[0]!, into: y) }
        }
    }
}

/// Gather along an axis, with indices known at plan time (negative ones count from the end).
struct GatherOperator: ElementMoving {
    let axis: Int

    func sources(_ inputs: [ValueInfo?]) throws(InferenceError) -> [(shape: [Int], sources: [Int])] {
        let data = try required(inputs, 0, "data").shape
        let indices = try constantInput(inputs, 1, "indices")
        let axis = try normalizedAxis(axis, rank: data.count)
        let size = data[axis]
        var picked: [Int] = []
        for index in indices.integerValues {
            let resolved = index < 0 ? Int(index) + size : Int(index)
            guard (0..<size).contains(resolved) else { throw shapeError("index \(index) is out of range for a dimension of \(size)") }
            picked.append(resolved)
        }
        let outer = data[..<axis].reduce(1, *), inner = data[(axis + 1)...].reduce(1, *)
        var map: [Int] = []
        map.reserveCapacity(outer * picked.count * inner)
        for o in 0..<outer {
            for index in picked { map += ((o * size + index) * inner)..<((o * size + index + 1) * inner) }
        }
        return [(Array(data[..<axis]) + indices.shape + Array(data[(axis + 1)...]), map)]
    }
}

/// Slice: starts, ends, axes and steps (attributes before opset 10, inputs known at plan time since), clamped
/// as ONNX specifies.
struct SliceOperator: ElementMoving {
    /// Before opset 10: starts, ends and axes.
    let attributes: (starts: [Int], ends: [Int], axes: [Int]?)?

    func sources(_ inputs: [ValueInfo?]) throws(InferenceError) -> [(shape: [Int], sources: [Int])] {
        let data = try required(inputs, 0, "data").shape
        let starts: [Int], ends: [Int], axes: [Int]?, steps: [Int]?
        if let attributes {
            (starts, ends, axes, steps) = (attributes.starts, attributes.ends, attributes.axes, nil)
        } else {
            guard let given = try constantIntegers(inputs, 1, "starts"), let end = try constantIntegers(inputs, 2, "ends") else {
                throw shapeError("starts and ends are required")
            }
            (starts, ends) = (given, end)
            axes = try constantIntegers(inputs, 3, "axes")
            steps = try constantIntegers(inputs, 4, "steps")
        }
        let sliced = axes ?? Array(starts.indices)
        guard starts.count == ends.count, sliced.count == starts.count, (steps?.count ?? starts.count) == starts.count else {
            throw shapeError("starts \(starts), ends \(ends), axes \(sliced) and steps do not match")
        }
        var shape = data, step = Array(repeating: 1, count: data.count), first = Array(repeating: 0, count: data.count)
        for (k, axis) in sliced.enumerated() {
            let axis = try normalizedAxis(axis, rank: data.count)
            let size = data[axis], stride = steps?[k] ?? 1
            guard stride != 0 else { throw shapeError("a step is 0") }
            var start = starts[k] < 0 ? starts[k] + size : starts[k]
            var end = ends[k] < 0 && ends[k] > Int.min / 2 ? ends[k] + size : ends[k]
            if stride > 0 {
                start = min(max(start, 0), size)
                end = min(max(end, 0), size)
                shape[axis] = max(0, (end - start + stride - 1) / stride)
            } else {
                start = min(max(start, 0), size - 1)
                end = min(max(end, -1), size - 1)
                shape[axis] = max(0, (start - end - stride - 1) / -stride)
            }
            (first[axis], step[axis]) = (start, stride)
        }
        let strides = rowMajorStrides(data)
        let offset = zip(first, strides).reduce(0) { $0 + $1.0 * $1.1 }
        return [(shape, stridedSources(shape: shape, strides: zip(strides, step).map { $0 * $1 }, offset: offset))]
    }
}

/// Expand: broadcasts the input to a shape known at plan time (numpy's rules, both ways).
struct ExpandOperator: ElementMoving {
    func sources(_ inputs: [ValueInfo?]) throws(InferenceError) -> [(shape: [Int], sources: [Int])] {
        let data = try required(inputs, 0, "input").shape
        guard let target = try constantIntegers(inputs, 1, "shape"), let shape = Broadcasting.shape(data, target) else {
            throw shapeError("input \(data) does not expand to the shape given")
        }
        return [(shape, broadcastSources(of: data, in: shape))]
    }
}

/// Split along an axis into parts of given sizes (an attribute before opset 13, an input since), or into equal
/// parts (`num_outputs` from opset 18, else the number of outputs).
struct SplitOperator: ElementMoving {
    let axis: Int
    let attributeSizes: [Int]?
    let parts: Int

    func sources(_ inputs: [ValueInfo?]) throws(InferenceError) -> [(shape: [Int], sources: [Int])] {
        let data = try required(inputs, 0, "input").shape
        let axis = try normalizedAxis(axis, rank: data.count)
        let size = data[axis]
        let sizes: [Int]
        if let given = try attributeSizes == nil ? constantIntegers(inputs, 1, "split") : attributeSizes {
            guard given.reduce(0, +) == size, given.allSatisfy({ $0 >= 0 }) else { throw shapeError("split \(given) does not add up to \(size)") }
            sizes = given
        } else {
            let chunk = (size + parts - 1) / max(parts, 1)
            sizes = (0..<parts).map { max(0, min(chunk, size - $0 * chunk)) }
        }
        let strides = rowMajorStrides(data)
        var start = 0
        return sizes.map { part in
            var shape = data
            shape[axis] = part
            defer { start += part }
            return (shape, stridedSources(shape: shape, strides: strides, offset: start * strides[axis]))
        }
    }
}

/// Where: X where the condition holds, else Y, with broadcasting; the condition must be known at plan time.
struct WhereOperator: ConstantEvaluating {
    private func layout(_ inputs: [ValueInfo?]) throws(InferenceError) -> (shape: [Int], condition: [Bool], x: [Int], y: [Int]) {
        let condition = try constantInput(inputs, 0, "condition")
        let x = try required(inputs, 1, "X").shape, y = try required(inputs, 2, "Y").shape
        guard let xy = Broadcasting.shape(x, y), let shape = Broadcasting.shape(condition.shape, xy) else {
            throw shapeError("condition \(condition.shape), X \(x) and Y \(y) do not broadcast")
        }
        let flags = condition.integerValues
        let picks = broadcastSources(of: condition.shape, in: shape).map { flags[$0] != 0 }
        return (shape, picks, broadcastSources(of: x, in: shape), broadcastSources(of: y, in: shape))
    }

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        _ = try requiredFloat(inputs, 1, "X")
        _ = try requiredFloat(inputs, 2, "Y")
        return [.float(try layout(inputs).shape)]
    }

    func evaluate(_ inputs: [Tensor?]) throws(InferenceError) -> [Tensor] {
        guard inputs.count == 3, let x = inputs[1], let y = inputs[2] else { throw shapeError("needs a condition, X and Y") }
        let (shape, condition, xs, ys) = try layout(inputs.map { $0.map(ValueInfo.init(constant:)) })
        if x.elementType == .float || y.elementType == .float {
            let (a, b) = (x.floatValues, y.floatValues)
            return [Tensor(shape: shape, floats: condition.indices.map { condition[$0] ? a[xs[$0]] : b[ys[$0]] })]
        }
        return [Tensor(shape: shape, integers: condition.indices.map { condition[$0] ? x.integers[xs[$0]] : y.integers[ys[$0]] }, elementType: x.elementType)]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let (_, condition, xs, ys) = try layout(inputs)
        return { inputs, outputs in
            let x = inputs[1]!, y = inputs[2]!, z = outputs[0]
            for i in condition.indices { z[i] = condition[i] ? x[xs[i]] : y[ys[i]] }
        }
    }
}
