extension Array where Element == UInt8 {
    /// `size` bytes written in place by `write`, which must fill all of them: for frames whose size is known
    /// before they are written, with no zero-fill and no copy.
    init(writing size: Int, by write: (UnsafeMutableRawBufferPointer) -> Void) {
        self.init(unsafeUninitializedCapacity: size) { buffer, initialized in
            write(UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[..<size]))
            initialized = size
        }
    }
}
