import Foundation

/// Add, Sub, Mul, Div and Pow, with numpy's broadcasting. Floats at run time; int64 too when both inputs are
/// known at plan time (shape arithmetic).
struct BinaryOperator: ConstantEvaluating {
    enum Function: Sendable { case add, subtract, multiply, divide, power }
    let function: Function

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let a = try requiredFloat(inputs, 0, "A"), b = try requiredFloat(inputs, 1, "B")
        guard let shape = Broadcasting.shape(a.shape, b.shape) else {
            throw shapeError("shapes \(a.shape) and \(b.shape) do not broadcast")
        }
        return [.float(shape)]
    }

    func evaluate(_ inputs: [Tensor?]) throws(InferenceError) -> [Tensor] {
        guard inputs.count == 2, let a = inputs[0], let b = inputs[1] else { throw shapeError("needs inputs A and B") }
        let (shape, aIndex, bIndex) = try broadcastPairs(a.shape, b.shape)
        guard a.elementType == .float || b.elementType == .float else {
            let x = a.integers, y = b.integers
            var result: [Int64] = []
            result.reserveCapacity(aIndex.count)
            for i in aIndex.indices {
                let (p, q) = (x[aIndex[i]], y[bIndex[i]])
                switch function {
                case .add: result.append(p &+ q)
                case .subtract: result.append(p &- q)
                case .multiply: result.append(p &* q)
                case .divide:
                    guard q != 0 else { throw shapeError("integer division by zero") }
                    result.append(p / q)
                case .power: result.append(q < 0 ? 0 : (0..<q).reduce(Int64(1)) { product, _ in product &* p })
                }
            }
            return [Tensor(shape: shape, integers: result)]
        }
        let x = a.floatValues, y = b.floatValues
        var result = [Float](repeating: 0, count: aIndex.count)
        for i in aIndex.indices { result[i] = Self.apply(function, x[aIndex[i]], y[bIndex[i]]) }
        return [Tensor(shape: shape, floats: result)]
    }

    @inline(__always)
    private static func apply(_ function: Function, _ x: Float, _ y: Float) -> Float {
        switch function {
        case .add: x + y
        case .subtract: x - y
        case .multiply: x * y
        case .divide: x / y
        case .power: y == 2 ? x * x : (y == 0.5 ? x.squareRoot() : powf(x, y))
        }
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let shape = outputs[0].shape
        let count = outputs[0].count
        let aCount = inputs[0]!.count, bCount = inputs[1]!.count
        let function = function
        if aCount == count && bCount == count {
            return { inputs, outputs in Self.combine(function, inputs[0]!, 1, inputs[1]!, 1, outputs[0], count) }
        }
        let rank = max(shape.count, 1)
        let target = shape.isEmpty ? [1] : shape
        let strides = [
            Broadcasting.strides(of: inputs[0]!.shape, in: target), Broadcasting.strides(of: inputs[1]!.shape, in: target),
            rowMajorStrides(target),
        ]
        let inner = target[rank - 1]
        let aInner = strides[0][rank - 1], bInner = strides[1][rank - 1]
        return { inputs, outputs in
            let a = inputs[0]!, b = inputs[1]!, y = outputs[0]
            forEachRow(of: target, strides: strides) { offsets in
                Self.combine(function, a + offsets[0], aInner, b + offsets[1], bInner, y + offsets[2], inner)
            }
        }
    }

    /// y[i] = f(a[i·aStride], b[i·bStride]) for i < count; strides are 0 (broadcast) or 1.
    private static func combine(
        _ function: Function, _ a: UnsafePointer<Float>, _ aStride: Int, _ b: UnsafePointer<Float>, _ bStride: Int,
        _ y: UnsafeMutablePointer<Float>, _ count: Int
    ) {
        switch (function, aStride, bStride) {
        case (.add, 1, 1): for i in 0..<count { y[i] = a[i] + b[i] }
        case (.add, 1, 0): let s = b[0]; for i in 0..<count { y[i] = a[i] + s }
        case (.subtract, 1, 1): for i in 0..<count { y[i] = a[i] - b[i] }
        case (.subtract, 1, 0): let s = b[0]; for i in 0..<count { y[i] = a[i] - s }
        case (.multiply, 1, 1): for i in 0..<count { y[i] = a[i] * b[i] }
        case (.multiply, 1, 0): let s = b[0]; for i in 0..<count { y[i] = a[i] * s }
        case (.divide, 1, 1): for i in 0..<count { y[i] = a[i] / b[i] }
        case (.divide, 1, 0): let s = b[0]; for i in 0..<count { y[i] = a[i] / s }
        default: for i in 0..<count { y[i] = apply(function, a[i * aStride], b[i * bStride]) }
        }
    }
}
