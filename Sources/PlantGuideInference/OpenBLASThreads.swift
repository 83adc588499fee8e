import COpenBLAS

/// OpenBLAS's thread count is a process-wide setting.
func openblasSetThreads(_ count: Int) {
    openblas_set_num_threads(Int32(count))
}
