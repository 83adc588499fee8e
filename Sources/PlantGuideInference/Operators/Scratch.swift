/// Memory a kernel keeps between runs (im2col columns), freed with the plan that owns the kernel.
final class Scratch: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Float>
    let count: Int

    init(count: Int) {
        self.count = count
        pointer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * 4, alignment: 64).bindMemory(to: Float.self, capacity: max(count, 1))
        pointer.initialize(repeating: 0, count: max(count, 1))
    }

    deinit { pointer.deallocate() }
}
