import CInferenceKernels

/// The instruction set the executor's kernels use: the best the CPU has, or a lower one forced by
/// `PLANTGUIDE_INFERENCE_ISA` (`avx512`, `avx2`, `portable`), so that every path can be tested and measured on one
/// machine. Chosen once per process; packed weights are laid out the same for every set.
public enum InferenceISA: Int32, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    /// Loops the compiler vectorises for the baseline x86-64 (SSE2), and OpenBLAS (or, without it, the built-in loops)
    /// for every matrix product.
    case portable
    /// AVX2 and FMA (x86-64-v3: every Zen, Intel since Haswell).
    case avx2
    /// AVX-512 F, BW, CD, DQ and VL (x86-64-v4: Zen 4 and 5, Intel server parts since Skylake-SP).
    case avx512

    /// The environment variable that forces a set.
    public static let environmentVariable = "PLANTGUIDE_INFERENCE_ISA"

    /// The best this CPU runs.
    public static var cpu: InferenceISA { InferenceISA(rawValue: pg_cpu_isa()) ?? .portable }

    /// The set in use.
    public static var current: InferenceISA { InferenceISA(rawValue: pg_isa()) ?? .portable }

    /// Every set this CPU runs, lowest first: the paths tests and benchmarks go through.
    public static var supported: [InferenceISA] { allCases.filter { $0 <= cpu } }

    /// The set in use, after checking that `PLANTGUIDE_INFERENCE_ISA`, where set, names one this CPU runs: a
    /// misspelt or unsupported value is an error, never a silent fallback to another path.
    public static func configured() throws(InferenceError) -> InferenceISA {
        let requested = pg_requested_isa()
        if Int(requested) == PG_ISA_INVALID {
            throw InferenceError(.unsupportedModel, "\(environmentVariable) must be one of \(allCases.map(\.description).joined(separator: ", "))")
        }
        if let isa = InferenceISA(rawValue: requested), isa > cpu {
            throw InferenceError(.unsupportedModel, "\(environmentVariable)=\(isa): this CPU runs at most \(cpu)")
        }
        return current
    }

    /// The name `PLANTGUIDE_INFERENCE_ISA` takes: "avx512", "avx2" or "portable".
    public var description: String { String(cString: pg_isa_name(rawValue)) }

    public static func < (lhs: InferenceISA, rhs: InferenceISA) -> Bool { lhs.rawValue < rhs.rawValue }
}
