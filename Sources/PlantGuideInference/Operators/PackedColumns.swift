import CInferenceKernels

/// A Linear layer's constant weights B [k × n], packed once at load into tiles of 32 columns with each tile's k
/// rows contiguous (`pg_pack_columns`), for the packed product (AVX-512 or AVX2) with activations packed on each run.
///
/// The layout is what lets a huge layer run at memory speed: the default model's first fully-connected layer has
/// 74 MB of weights, which OpenBLAS packs anew on every call at batch 8, and which a row-major read walks 4 KB
/// apart. Packed here, they stream from memory in one pass, each tile against every row of the batch. Made at
/// load and shared by every plan and worker thread, so a model holds one packed copy whatever its batch sizes.
final class PackedColumns: Sendable {
    /// k, the rows of B (the product's depth).
    let depth: Int
    /// n, the columns of B (the product's outputs per row).
    let columns: Int
    private let packed: Scratch

    /// Packs `weights`, k × n row-major, or n × k when `transposed` (Gemm's transB); nil on the portable path or
    /// where `weights` is not a 2-D float tensor.
    init?(_ weights: Tensor, transposed: Bool) {
        guard PackedProduct.isAvailable, weights.elementType == .float, weights.shape.count == 2 else { return nil }
        (depth, columns) = transposed ? (weights.shape[1], weights.shape[0]) : (weights.shape[0], weights.shape[1])
        packed = Scratch(count: pg_packed_columns_size(Int32(depth), Int32(columns)))
        weights.floats.withUnsafeBufferPointer {
            pg_pack_columns($0.baseAddress!, Int32(depth), Int32(columns), transposed ? 1 : 0, packed.pointer)
        }
    }

    /// Memory for the activations of `rows` rows, packed on each run: one per kernel, since plans run one at a time.
    func activationScratch(rows: Int) -> Scratch {
        Scratch(count: pg_packed_weights_size(Int32(rows), Int32(depth)))
    }

    /// y[rows × n] = activation(a·B + columnBias), a being `rows` rows of k floats; Relu and Clip are applied as the
    /// rows are stored, other activations after. The rows are read as they are where the path has a kernel for it
    /// (one row: AVX-512 and AVX2; several: AVX-512, against at most 1 MB of weights), else packed first.
    func multiply(_ a: UnsafePointer<Float>, rows: Int, scratch: Scratch, into y: UnsafeMutablePointer<Float>,
                  columnBias: UnsafePointer<Float>?, activation: Activation = .identity) {
        let (kind, low, high) = activation.fusedEpilogue
        if pg_rows_packed_columns(a, Int32(rows), Int32(depth), packed.pointer, Int32(columns), y, columnBias, kind, low, high) == 0 {
            pg_pack_weights(a, Int32(rows), Int32(depth), scratch.pointer)
            pg_packed_gemm(scratch.pointer, Int32(rows), Int32(depth), packed.pointer, Int32(columns), 32, 32 * depth, y, nil,
                           columnBias, kind, low, high)
        }
        if !activation.isFusedByKernels { activation.apply(y, y, count: rows * columns) }
    }
}
