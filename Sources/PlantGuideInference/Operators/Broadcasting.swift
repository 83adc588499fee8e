/// Numpy-style (multidirectional) broadcasting, as ONNX's Add and Mul use it.
enum Broadcasting {
    /// The broadcast shape of two shapes, or nil when they do not broadcast.
    static func shape(_ a: [Int], _ b: [Int]) -> [Int]? {
        let rank = max(a.count, b.count)
        let a = Array(repeating: 1, count: rank - a.count) + a
        let b = Array(repeating: 1, count: rank - b.count) + b
        var result: [Int] = []
        for (x, y) in zip(a, b) {
            guard x == y || x == 1 || y == 1 else { return nil }
            result.append(x == 1 ? y : x)
        }
        return result
    }

    /// The element strides of `shape` read as `target` (0 along broadcast dimensions).
    static func strides(of shape: [Int], in target: [Int]) -> [Int] {
        let padded = Array(repeating: 1, count: target.count - shape.count) + shape
        var strides = Array(repeating: 0, count: target.count)
        var step = 1
        for axis in stride(from: target.count - 1, through: 0, by: -1) {
            strides[axis] = padded[axis] == 1 ? 0 : step
            step *= padded[axis]
        }
        return strides
    }
}

/// The element strides of a row-major tensor of this shape.
func rowMajorStrides(_ shape: [Int]) -> [Int] {
    shape.indices.map { shape[($0 + 1)...].reduce(1, *) }
}

/// Visits every index of `shape` but the last, in row-major order, with the element offsets of each operand
/// (given by its strides); the body handles one whole innermost row. The loop the layout-generic operators share.
func forEachRow(of shape: [Int], strides: [[Int]], _ body: (_ offsets: [Int]) -> Void) {
    guard !shape.contains(0) else { return }
    let outer = shape.dropLast().count
    var index = Array(repeating: 0, count: outer)
    var offsets = Array(repeating: 0, count: strides.count)
    while true {
        body(offsets)
        var axis = outer - 1
        while axis >= 0 {
            index[axis] += 1
            for k in 0..<strides.count { offsets[k] += strides[k][axis] }
            if index[axis] < shape[axis] { break }
            for k in 0..<strides.count { offsets[k] -= strides[k][axis] * shape[axis] }
            index[axis] = 0
            axis -= 1
        }
        if axis < 0 { return }
    }
}

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
