import CInferenceKernels

/// A convolution's weights packed once for `pg_packed_gemm` (AVX-512 or AVX2), which applies the bias and a Relu or
/// Clip as it stores: the matrix product of pointwise and im2col convolutions on the AVX2 and AVX-512 paths.
struct PackedProduct {
    /// Whether the instruction set in use runs it (and the depthwise 3×3 kernels).
    static let isAvailable = InferenceISA.current >= .avx2

    private let packed: Scratch
    let rows: Int
    let depth: Int

    /// Packs row-major `rows` × `depth` weights; nil on the portable path.
    init?(weights: UnsafePointer<Float>, rows: Int, depth: Int) {
        guard Self.isAvailable else { return nil }
        packed = Scratch(count: pg_packed_weights_size(Int32(rows), Int32(depth)))
        pg_pack_weights(weights, Int32(rows), Int32(depth), packed.pointer)
        self.rows = rows
        self.depth = depth
    }

    /// y[rows × columns] = activation(W·x + bias), x being `depth` rows of `columns` floats, `pitch` apart.
    func run(_ x: UnsafePointer<Float>, columns: Int, pitch: Int, into y: UnsafeMutablePointer<Float>,
             bias: UnsafePointer<Float>?, activation: Activation) {
        let (kind, low, high) = activation.fusedEpilogue
        pg_packed_gemm(packed.pointer, Int32(rows), Int32(depth), x, Int32(columns), pitch, 32, y, bias, nil, kind, low, high)
        if !activation.isFusedByKernels { activation.apply(y, y, count: rows * columns) }
    }
}
