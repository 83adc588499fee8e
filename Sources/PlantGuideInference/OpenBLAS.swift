import CInferenceKernels

/// OpenBLAS, loaded at first use where it is installed (see CInferenceKernels/blas.c); without it the matrix
/// products it would run take the built-in loops.
enum OpenBLAS {
    /// Whether it is loaded (and not refused with PLANTGUIDE_BLAS=builtin).
    static var isLoaded: Bool { pg_blas_load() != 0 }

    /// The kernels it chose for this CPU, e.g. "SkylakeX".
    static var core: String { String(cString: pg_blas_core()) }

    /// What runs the products no packed kernel takes: "OpenBLAS SkylakeX", or "built-in loops".
    static var description: String { isLoaded ? "OpenBLAS " + core : "built-in loops" }

    /// Its thread count is a process-wide setting.
    static func setThreads(_ count: Int) { pg_blas_set_threads(Int32(count)) }
}
