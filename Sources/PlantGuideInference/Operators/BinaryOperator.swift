/// Add and Mul, with broadcasting.
struct BinaryOperator: Operator {
    enum Function: Sendable { case add, multiply }
    let function: Function

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let a = try requiredFloat(inputs, 0, "A"), b = try requiredFloat(inputs, 1, "B")
        guard let shape = Broadcasting.shape(a.shape, b.shape) else {
            throw shapeError("shapes \(a.shape) and \(b.shape) do not broadcast")
        }
        return [.float(shape)]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let shape = outputs[0].shape
        let count = outputs[0].count
        let aCount = inputs[0]!.count, bCount = inputs[1]!.count
        let function = function
        func combine(_ x: Float, _ y: Float) -> Float { function == .add ? x + y : x * y }
        if aCount == count && bCount == count {
            return { inputs, outputs in
                let a = inputs[0]!, b = inputs[1]!, y = outputs[0]
                switch function {
                case .add: for i in 0..<count { y[i] = a[i] + b[i] }
                case .multiply: for i in 0..<count { y[i] = a[i] * b[i] }
                }
            }
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
                let pa = a + offsets[0], pb = b + offsets[1], py = y + offsets[2]
                if aInner == 1 && bInner == 1 {
                    for i in 0..<inner { py[i] = combine(pa[i], pb[i]) }
                } else if bInner == 0 {
                    let scalar = pb[0]
                    for i in 0..<inner { py[i] = combine(pa[i * aInner], scalar) }
                } else {
                    for i in 0..<inner { py[i] = combine(pa[i * aInner], pb[i * bInner]) }
                }
            }
        }
    }
}
