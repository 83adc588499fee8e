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
