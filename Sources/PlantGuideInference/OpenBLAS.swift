import CInferenceKernels

/// OpenBLAS, loaded at first use (see CInferenceKernels/blas.c).
enum OpenBLAS {
    /// Loads it, or explains what is missing.
    static func load() throws(InferenceError) {
        guard pg_blas_load() != 0 else {
            throw InferenceError(.unsupportedModel, "OpenBLAS (libopenblas.so.0, Debian's libopenblas0) is not installed")
        }
    }

    /// The kernels it chose for this CPU, e.g. "SkylakeX".
    static var core: String { String(cString: pg_blas_core()) }

    /// Its thread count is a process-wide setting.
    static func setThreads(_ count: Int) { pg_blas_set_threads(Int32(count)) }
}
