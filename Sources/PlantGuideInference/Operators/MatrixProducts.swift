import CInferenceKernels

/// C = A·B (+ C when `accumulate`) for row-major A [m×k] (or its transpose) and B [k×n] (or its transpose):
/// OpenBLAS, with its matrix-vector product for the single-row case a batch of one gives.
@inline(__always)
func multiply(
    _ a: UnsafePointer<Float>, transposeA: Bool = false, _ b: UnsafePointer<Float>, transposeB: Bool = false,
    into c: UnsafeMutablePointer<Float>, m: Int, n: Int, k: Int, alpha: Float = 1, accumulate: Bool = false
) {
    let beta: Float = accumulate ? 1 : 0
    if m == 1 && !transposeA {
        // y[n] = op(B)ᵀ·a: B is k×n row-major, so y = Bᵀa (or B'a when B is given transposed, n×k).
        pg_sgemv(transposeB ? 0 : 1, Int32(transposeB ? n : k), Int32(transposeB ? k : n), alpha, b, Int32(transposeB ? k : n), a, beta, c)
        return
    }
    pg_sgemm(
        transposeA ? 1 : 0, transposeB ? 1 : 0, Int32(m), Int32(n), Int32(k), alpha, a, Int32(transposeA ? m : k), b,
        Int32(transposeB ? k : n), beta, c, Int32(n))
}

/// Gemm: Y = α·op(A)·op(B) + β·C, C broadcast to [M, N]. Linear layers. An activation may be fused in.
struct GemmOperator: Operator {
    let alpha: Float
    let beta: Float
    let transposeA: Bool
    let transposeB: Bool
    var activation: Activation = .identity
    /// B packed at load when it is a constant and the kernels run AVX-512 or AVX2 (``GraphOptimizer``).
    var packedWeights: PackedColumns?

    /// Whether the packed product can run this Gemm with these weights, as far as load time knows (C's shape when C
    /// is a constant): Y = A·B plus C of one row, which it adds as a per-column bias. The plan checks a C computed at
    /// run time.
    func takesPackedWeights(_ weights: Tensor, constantC: Tensor?) -> Bool {
        guard !transposeA, alpha == 1, weights.shape.count == 2 else { return false }
        guard let c = constantC, beta != 0 else { return true }
        return beta == 1 && c.count == weights.shape[transposeB ? 0 : 1]
    }

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let a = try requiredFloat(inputs, 0, "A"), b = try requiredFloat(inputs, 1, "B")
        guard a.shape.count == 2, b.shape.count == 2 else { throw shapeError("A \(a.shape) and B \(b.shape) must be 2-D") }
        let (m, k) = transposeA ? (a.shape[1], a.shape[0]) : (a.shape[0], a.shape[1])
        let (kb, n) = transposeB ? (b.shape[1], b.shape[0]) : (b.shape[0], b.shape[1])
        guard k == kb else { throw shapeError("A \(a.shape) and B \(b.shape) do not multiply (transA \(transposeA), transB \(transposeB))") }
        if inputs.count > 2, let c = inputs[2] {
            guard c.elementType == .float, Broadcasting.shape(c.shape, [m, n]) == [m, n] else {
                throw shapeError("C \(c.shape) does not broadcast to [\(m), \(n)]")
            }
        }
        return [.float([m, n])]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let (m, n) = (outputs[0].shape[0], outputs[0].shape[1])
        let k = transposeA ? inputs[0]!.shape[0] : inputs[0]!.shape[1]
        let cShape = inputs.count > 2 ? inputs[2]?.shape : nil
        let cStrides = cShape.map { Broadcasting.strides(of: $0, in: [m, n]) }
        let (alpha, beta, transposeA, transposeB, activation) = (alpha, beta, transposeA, transposeB, activation)
        let hasC = cShape != nil && beta != 0
        // The packed product adds C as a per-column bias, unscaled. The optimizer packed the weights only where A
        // and alpha suit it (``takesPackedWeights``); a C computed at run time is checked here.
        if let packed = packedWeights, !hasC || (beta == 1 && cShape!.reduce(1, *) == n) {
            let scratch = packed.activationScratch(rows: m)
            return { inputs, outputs in
                packed.multiply(inputs[0]!, rows: m, scratch: scratch, into: outputs[0], columnBias: hasC ? inputs[2] : nil,
                                activation: activation)
            }
        }
        return { inputs, outputs in
            let y = outputs[0]
            if hasC, let c = inputs[2], let strides = cStrides {
                for row in 0..<m {
                    for column in 0..<n { y[row * n + column] = beta * c[row * strides[0] + column * strides[1]] }
                }
            }
            multiply(inputs[0]!, transposeA: transposeA, inputs[1]!, transposeB: transposeB, into: y, m: m, n: n, k: k,
                     alpha: alpha, accumulate: hasC)
            if activation != .identity { activation.apply(y, y, count: m * n) }
        }
    }
}

/// MatMul with numpy's rules: batched over leading dimensions (broadcast), 1-D operands promoted and squeezed.
/// GraphOptimizer gives a Linear layer's MatMul the Add of its bias as a third input, [n] added to every row.
struct MatMulOperator: Operator {
    /// B packed at load when it is a 2-D constant and the kernels run AVX-512 or AVX2 (``GraphOptimizer``).
    var packedWeights: PackedColumns?

    private struct Layout {
        var batchShape: [Int]
        var m: Int, k: Int, n: Int
        var outputShape: [Int]
    }

    private func layout(_ a: [Int], _ b: [Int]) throws(InferenceError) -> Layout {
        guard !a.isEmpty, !b.isEmpty else { throw shapeError("MatMul of a scalar") }
        let a2 = a.count == 1 ? [1] + a : a, b2 = b.count == 1 ? b + [1] : b
        let (m, k) = (a2[a2.count - 2], a2[a2.count - 1]), (kb, n) = (b2[b2.count - 2], b2[b2.count - 1])
        guard k == kb, let batch = Broadcasting.shape(Array(a2.dropLast(2)), Array(b2.dropLast(2))) else {
            throw shapeError("shapes \(a) and \(b) do not multiply")
        }
        var output = batch
        if a.count > 1 { output.append(m) }
        if b.count > 1 { output.append(n) }
        return Layout(batchShape: batch, m: m, k: k, n: n, outputShape: output)
    }

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let a = try requiredFloat(inputs, 0, "A"), b = try requiredFloat(inputs, 1, "B")
        let shape = try layout(a.shape, b.shape).outputShape
        if inputs.count > 2, let bias = inputs[2] {
            guard bias.elementType == .float, b.shape.count == 2, bias.count == b.shape[1] else {
                throw shapeError("bias \(bias.shape) is not one value per column of B \(b.shape)")
            }
        }
        return [.float(shape)]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let aShape = inputs[0]!.shape, bShape = inputs[1]!.shape
        let hasBias = inputs.count > 2 && inputs[2] != nil
        if aShape.count >= 2 && bShape.count == 2 {
            // A Linear layer over tokens or pixels, [..., m, k]·[k, n]: A's leading dimensions are more rows of
            // one product, not a batch of small ones.
            let (rows, k, n) = (aShape.dropLast().reduce(1, *), aShape[aShape.count - 1], bShape[1])
            guard PackedProduct.isAvailable else {
                return { inputs, outputs in
                    multiply(inputs[0]!, inputs[1]!, into: outputs[0], m: rows, n: n, k: k)
                    if hasBias { addColumnBias(inputs[2]!, to: outputs[0], count: rows * n, columns: n) }
                }
            }
            // On AVX-512 and AVX2, A (the activations) is packed on each run, a copy, and B streamed packed (a
            // constant) or as it is, which beats OpenBLAS's packing of both on every call. The bias is added as rows
            // are stored.
            if let weights = packedWeights {
                let scratch = weights.activationScratch(rows: rows)
                return { inputs, outputs in
                    weights.multiply(inputs[0]!, rows: rows, scratch: scratch, into: outputs[0], columnBias: hasBias ? inputs[2] : nil)
                }
            }
            let packed = Scratch(count: pg_packed_weights_size(Int32(rows), Int32(k)))
            return { inputs, outputs in
                pg_pack_weights(inputs[0]!, Int32(rows), Int32(k), packed.pointer)
                pg_packed_gemm(packed.pointer, Int32(rows), Int32(k), inputs[1]!, Int32(n), n, 32, outputs[0], nil,
                               hasBias ? inputs[2] : nil, Int32(PG_ACTIVATION_NONE), 0, 0)
            }
        }

        let layout = try layout(aShape, bShape)
        let (m, k, n) = (layout.m, layout.k, layout.n)
        let batch = layout.batchShape
        let aBatch = Array((aShape.count == 1 ? [1] + aShape : aShape).dropLast(2))
        let bBatch = Array((bShape.count == 1 ? bShape + [1] : bShape).dropLast(2))
        // Offsets of each batch's A and B matrices, computed once.
        var aOffsets: [Int] = [], bOffsets: [Int] = []
        let batchCount = batch.reduce(1, *)
        if batch.isEmpty {
            aOffsets = [0]; bOffsets = [0]
        } else {
            let aStrides = Broadcasting.strides(of: aBatch, in: batch), bStrides = Broadcasting.strides(of: bBatch, in: batch)
            for flat in 0..<batchCount {
                var rest = flat, aOffset = 0, bOffset = 0
                for axis in stride(from: batch.count - 1, through: 0, by: -1) {
                    let index = rest % batch[axis]
                    rest /= batch[axis]
                    aOffset += index * aStrides[axis]
                    bOffset += index * bStrides[axis]
                }
                aOffsets.append(aOffset * m * k)
                bOffsets.append(bOffset * k * n)
            }
        }
        let outputCount = outputs[0].count
        return { [aOffsets, bOffsets] inputs, outputs in
            for index in 0..<max(batchCount, 1) {
                multiply(inputs[0]! + aOffsets[index], inputs[1]! + bOffsets[index], into: outputs[0] + index * m * n, m: m, n: n, k: k)
            }
            if hasBias { addColumnBias(inputs[2]!, to: outputs[0], count: outputCount, columns: n) }
        }
    }
}

/// y[i] += bias[i mod columns] for the `count` values of row-major rows of `columns`: a fused Linear bias where
/// the packed kernel does not run.
private func addColumnBias(_ bias: UnsafePointer<Float>, to y: UnsafeMutablePointer<Float>, count: Int, columns: Int) {
    for row in stride(from: 0, to: count, by: columns) {
        for j in 0..<columns { y[row + j] += bias[j] }
    }
}
