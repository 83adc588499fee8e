import Synchronization

/// A continuation resumed once, by whichever of several racing tasks comes first; later results are dropped.
final class FirstResult<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    /// Resumes the waiter with `value` unless another result came first.
    func resume(_ value: Value) {
        continuation.withLock { held in
            defer { held = nil }
            return held
        }?.resume(returning: value)
    }
}
