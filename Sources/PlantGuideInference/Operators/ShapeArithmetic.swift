import Foundation

/// Shape: the input's shape (a slice of it from opset 15) as int64, always known at plan time.
struct ShapeOperator: Operator {
    let start: Int
    let end: Int?

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let shape = try required(inputs, 0, "data").shape
        let rank = shape.count
        func clamp(_ axis: Int) -> Int { min(max(axis < 0 ? axis + rank : axis, 0), rank) }
        let (from, to) = (clamp(start), clamp(end ?? rank))
        let dimensions = from < to ? shape[from..<to].map { Int64($0) } : []
        return [OutputInfo(info: ValueInfo(constant: Tensor(shape: [dimensions.count], integers: dimensions)))]
    }
}

/// Size: the input's element count as an int64 scalar, always known at plan time.
struct SizeOperator: Operator {
    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        [OutputInfo(info: ValueInfo(constant: Tensor(shape: [], integers: [Int64(try required(inputs, 0, "data").count)])))]
    }
}

/// ConstantOfShape: a tensor of a fixed shape filled with one value (float 0 by default).
struct ConstantOfShapeOperator: Operator {
    let value: Tensor?

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let shape = try constantInput(inputs, 0, "input").integerValues.map { Int($0) }
        guard shape.allSatisfy({ $0 >= 0 }) else { throw shapeError("shape \(shape) has a negative dimension") }
        let count = shape.reduce(1, *)
        let filled: Tensor
        if let value, value.elementType != .float {
            filled = Tensor(shape: shape, integers: Array(repeating: value.integers.first ?? 0, count: count), elementType: value.elementType)
        } else {
            filled = Tensor(shape: shape, floats: Array(repeating: value?.floats.first ?? 0, count: count))
        }
        return [OutputInfo(info: ValueInfo(constant: filled))]
    }
}

/// Range: start, start + delta, … below limit (above it for a negative delta); known at plan time.
struct RangeOperator: ConstantEvaluating {
    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        throw InferenceError(.unsupportedModel, "start, limit and delta must be known before the run")
    }

    func evaluate(_ inputs: [Tensor?]) throws(InferenceError) -> [Tensor] {
        guard inputs.count == 3, let start = inputs[0], let limit = inputs[1], let delta = inputs[2],
              start.count == 1, limit.count == 1, delta.count == 1 else { throw shapeError("start, limit and delta must be scalars") }
        if start.elementType == .float {
            let (first, end, step) = (start.floats[0], limit.floatValues[0], delta.floatValues[0])
            guard step != 0 else { throw shapeError("delta is 0") }
            let count = max(Int(((end - first) / step).rounded(.up)), 0)
            return [Tensor(shape: [count], floats: (0..<count).map { first + Float($0) * step })]
        }
        let (first, end, step) = (start.integers[0], limit.integers[0], delta.integers[0])
        guard step != 0 else { throw shapeError("delta is 0") }
        let span = end - first
        let count = max(Int((span + step + (step > 0 ? -1 : 1)) / step), 0)
        return [Tensor(shape: [count], integers: (0..<count).map { first + Int64($0) * step })]
    }
}

/// Equal, element-wise with broadcasting, to booleans; known at plan time only (shape tests).
struct EqualOperator: ConstantEvaluating {
    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        throw InferenceError(.unsupportedModel, "Equal of values computed at run time is not supported, only of values known before it")
    }

    func evaluate(_ inputs: [Tensor?]) throws(InferenceError) -> [Tensor] {
        guard inputs.count == 2, let a = inputs[0], let b = inputs[1] else { throw shapeError("needs inputs A and B") }
        let (shape, aIndex, bIndex) = try broadcastPairs(a.shape, b.shape)
        let equal: [Int64]
        if a.elementType == .float || b.elementType == .float {
            let (x, y) = (a.floatValues, b.floatValues)
            equal = aIndex.indices.map { x[aIndex[$0]] == y[bIndex[$0]] ? 1 : 0 }
        } else {
            equal = aIndex.indices.map { a.integers[aIndex[$0]] == b.integers[bIndex[$0]] ? 1 : 0 }
        }
        return [Tensor(shape: shape, integers: equal, elementType: .bool)]
    }
}

/// Cast between float, the integer types (held as int64) and bool. At run time only float to float, a copy
/// under a new name; other casts of values known at plan time.
struct CastOperator: ConstantEvaluating {
    let target: Tensor.ElementType

    /// The element type Cast's `to` names, nil for one this executor does not hold.
    static func elementType(_ to: Int) -> Tensor.ElementType? {
        switch Onnx_TensorProto.DataType(rawValue: to) {
        case .float, .double, .float16, .bfloat16: .float
        case .int64, .int32, .int16, .int8, .uint8, .uint16, .uint32, .uint64: .int64
        case .bool: .bool
        default: nil
        }
    }

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try requiredFloat(inputs, 0, "input")
        guard target == .float else { throw InferenceError(.unsupportedModel, "a cast of floats computed at run time to \(target) is not supported") }
        return [OutputInfo(info: x, aliasOfInput: 0)]
    }

    func evaluate(_ inputs: [Tensor?]) throws(InferenceError) -> [Tensor] {
        guard let x = inputs.first ?? nil else { throw shapeError("input 0 (input) is missing") }
        switch target {
        case .float: return [Tensor(shape: x.shape, floats: x.floatValues)]
        case .int64: return [Tensor(shape: x.shape, integers: x.integerValues)]
        case .bool:
            let values = x.elementType == .float ? x.floats.map { $0 != 0 ? Int64(1) : 0 } : x.integers.map { $0 != 0 ? Int64(1) : 0 }
            return [Tensor(shape: x.shape, integers: values, elementType: .bool)]
        }
    }
}
