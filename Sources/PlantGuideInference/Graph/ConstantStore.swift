/// The model's float weights, copied once at load into aligned memory that every session's plans read from.
final class ConstantStore: @unchecked Sendable {
    private var pointers: [String: UnsafeMutablePointer<Float>] = [:]

    init(_ tensors: [String: Tensor]) {
        for (name, tensor) in tensors where tensor.elementType == .float {
            let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(tensor.count, 1) * 4, alignment: 64)
                .bindMemory(to: Float.self, capacity: max(tensor.count, 1))
            pointer.initialize(from: tensor.floats, count: tensor.count)
            pointers[name] = pointer
        }
    }

    func pointer(_ name: String) -> UnsafePointer<Float>? { pointers[name].map { UnsafePointer($0) } }

    deinit { for pointer in pointers.values { pointer.deallocate() } }
}
