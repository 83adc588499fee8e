import CInferenceKernels
import PlantGuideTestSupport
import Testing

/// The built-in matrix products that stand in for OpenBLAS where it is not installed (a release bundle, the image)
/// against plain loops in Double: every transpose combination, alpha and beta, row strides wider than the rows,
/// and the single-row product a batch of one gives.
@Suite struct BuiltinMatrixProductTests {
    @Test("sgemm: C = alpha·op(A)·op(B) + beta·C for every transpose combination", arguments: [(1, 1, 1), (3, 5, 7), (17, 9, 33)])
    func matrixProduct(_ shape: (Int, Int, Int)) {
        let (m, n, k) = shape
        var generator = SplitMix64(seed: UInt64(m * 1000 + n * 10 + k))
        for transposeA in [false, true] {
            for transposeB in [false, true] {
                // Row strides one wider than the rows, so that a loop that ignores lda or ldb reads the wrong floats.
                let (lda, ldb, ldc) = ((transposeA ? m : k) + 1, (transposeB ? k : n) + 1, n + 1)
                let a = (0..<((transposeA ? k : m) * lda)).map { _ in Float.random(in: -1..<1, using: &generator) }
                let b = (0..<((transposeB ? n : k) * ldb)).map { _ in Float.random(in: -1..<1, using: &generator) }
                let c = (0..<(m * ldc)).map { _ in Float.random(in: -1..<1, using: &generator) }
                let (alpha, beta): (Float, Float) = (0.75, 0.5)
                var result = c
                pg_builtin_sgemm(transposeA ? 1 : 0, transposeB ? 1 : 0, Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b,
                                 Int32(ldb), beta, &result, Int32(ldc))
                var worst = 0.0
                for i in 0..<m {
                    for j in 0..<n {
                        var sum = 0.0
                        for p in 0..<k {
                            sum += Double(transposeA ? a[p * lda + i] : a[i * lda + p]) * Double(transposeB ? b[j * ldb + p] : b[p * ldb + j])
                        }
                        let expected = Double(alpha) * sum + Double(beta) * Double(c[i * ldc + j])
                        worst = max(worst, abs(Double(result[i * ldc + j]) - expected))
                    }
                    #expect(result[i * ldc + n] == c[i * ldc + n], "the padding after row \(i) of C is left alone")
                }
                #expect(worst < 1e-4, "m \(m) n \(n) k \(k) transA \(transposeA) transB \(transposeB): off by \(worst)")
            }
        }
    }

    @Test("sgemv: y = alpha·op(A)·x + beta·y, beta 0 ignoring what y held", arguments: [(1, 1), (4, 9), (33, 17)])
    func matrixVectorProduct(_ shape: (Int, Int)) {
        let (rows, columns) = shape
        var generator = SplitMix64(seed: UInt64(rows * 100 + columns))
        let lda = columns + 2
        let a = (0..<(rows * lda)).map { _ in Float.random(in: -1..<1, using: &generator) }
        for transpose in [false, true] {
            let (inputs, outputs) = transpose ? (rows, columns) : (columns, rows)
            let x = (0..<inputs).map { _ in Float.random(in: -1..<1, using: &generator) }
            for beta: Float in [0, 2] {
                // NaN where beta is 0: BLAS does not read y then, so neither may the built-in loop.
                let y = (0..<outputs).map { _ in beta == 0 ? Float.nan : Float.random(in: -1..<1, using: &generator) }
                var result = y
                pg_builtin_sgemv(transpose ? 1 : 0, Int32(rows), Int32(columns), 1.5, a, Int32(lda), x, beta, &result)
                for output in 0..<outputs {
                    var sum = 0.0
                    for input in 0..<inputs {
                        sum += Double(transpose ? a[input * lda + output] : a[output * lda + input]) * Double(x[input])
                    }
                    let expected = 1.5 * sum + (beta == 0 ? 0 : Double(beta) * Double(y[output]))
                    #expect(abs(Double(result[output]) - expected) < 1e-4, "transpose \(transpose) beta \(beta) output \(output)")
                }
            }
        }
    }
}
