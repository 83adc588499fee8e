/// An operator that can compute its outputs at plan time when every input is known then, of any element type.
///
/// Exported transformers compute their shapes in the graph (Shape, Gather, Unsqueeze, Concat, int64 arithmetic,
/// Range, Equal, Where): with the input shape fixed by the plan, those values are constants, so the planner
/// evaluates them once and no kernel runs them.
protocol ConstantEvaluating: Operator {
    /// The outputs for these constant inputs (nil for an omitted optional input).
    func evaluate(_ inputs: [Tensor?]) throws(InferenceError) -> [Tensor]
}

extension Tensor {
    /// The elements as 64-bit integers, whatever the element type (floats truncated toward zero).
    var integerValues: [Int64] { elementType == .float ? floats.map { Int64($0) } : integers }

    /// The elements as floats, whatever the element type.
    var floatValues: [Float] { elementType == .float ? floats : integers.map { Float($0) } }

    /// A tensor of this element type and `shape` whose element i is this tensor's element `sources[i]`.
    func gathered(_ sources: [Int], shape: [Int]) -> Tensor {
        elementType == .float
            ? Tensor(shape: shape, floats: sources.map { floats[$0] })
            : Tensor(shape: shape, integers: sources.map { integers[$0] }, elementType: elementType)
    }
}

/// For each element of an output of `shape`, in row-major order, the flat index of the element it reads:
/// `offset` plus the output index dotted with `strides`. Slice, Expand and Transpose are this map.
func stridedSources(shape: [Int], strides: [Int], offset: Int = 0) -> [Int] {
    let count = shape.reduce(1, *)
    guard count > 0 else { return [] }
    guard !shape.isEmpty else { return [offset] }
    var result: [Int] = []
    result.reserveCapacity(count)
    let inner = shape[shape.count - 1], innerStride = strides[shape.count - 1]
    forEachRow(of: shape, strides: [strides]) { offsets in
        let base = offset + offsets[0]
        for i in 0..<inner { result.append(base + i * innerStride) }
    }
    return result
}

/// For each element of `target`, the element of a tensor of `shape` that numpy's broadcasting reads there.
func broadcastSources(of shape: [Int], in target: [Int]) -> [Int] {
    stridedSources(shape: target, strides: Broadcasting.strides(of: shape, in: target))
}

/// The broadcast shape of two operands, and for each of its elements the element of each operand it reads:
/// the element-wise operators' plan-time evaluation.
func broadcastPairs(_ a: [Int], _ b: [Int]) throws(InferenceError) -> (shape: [Int], a: [Int], b: [Int]) {
    guard let shape = Broadcasting.shape(a, b) else { throw shapeError("shapes \(a) and \(b) do not broadcast") }
    return (shape, broadcastSources(of: a, in: shape), broadcastSources(of: b, in: shape))
}

/// A map of output elements to input elements (as `gather` takes it), kept as runs of consecutive elements where it
/// has long ones: a Gather of one index on the first axis, or a Slice or Split of the last axes, copies whole blocks.
/// (A ViT's three Gathers of Q, K and V a layer copied element by element through the map took 4 % of its time.)
struct ElementMoves: Sendable {
    private enum Storage {
        case runs([(destination: Int, source: Int, count: Int)])
        case elements([Int])
    }
    private let storage: Storage

    init(_ sources: [Int]) {
        var runs: [(destination: Int, source: Int, count: Int)] = []
        var start = 0
        while start < sources.count, runs.count * 8 <= sources.count {
            var end = start + 1
            while end < sources.count && sources[end] == sources[end - 1] + 1 { end += 1 }
            runs.append((start, sources[start], end - start))
            start = end
        }
        // Runs of eight elements or more on average, else the map itself: a run per element costs more.
        storage = start >= sources.count ? .runs(runs) : .elements(sources)
    }

    /// y[i] = x[sources[i]] for every i.
    func apply(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>) {
        switch storage {
        case .runs(let runs):
            for run in runs { (y + run.destination).update(from: x + run.source, count: run.count) }
        case .elements(let sources):
            gather(x, sources, into: y)
        }
    }
}

/// y[i] = x[sources[i]] for every i.
func gather(_ x: UnsafePointer<Float>, _ sources: [Int], into y: UnsafeMutablePointer<Float>) {
    sources.withUnsafeBufferPointer { map in
        for i in map.indices { y[i] = x[map[i]] }
    }
}

/// The fixed value of input `index`, or an error saying it must be known before the run.
func constantInput(_ inputs: [ValueInfo?], _ index: Int, _ what: String) throws(InferenceError) -> Tensor {
    guard index < inputs.count, let value = inputs[index] else { throw shapeError("input \(index) (\(what)) is missing") }
    guard let constant = value.constant else {
        throw InferenceError(.unsupportedModel, "input \(index) (\(what)) must be known before the run (a constant or a shape)")
    }
    return constant
}
