/// What the planner knows of a value before a run: its shape and type, and the value itself when it is fixed
/// (initializers, constants, and integer inputs such as shapes and pads).
struct ValueInfo {
    var shape: [Int]
    var elementType: Tensor.ElementType
    var constant: Tensor?

    init(shape: [Int], elementType: Tensor.ElementType = .float, constant: Tensor? = nil) {
        self.shape = shape
        self.elementType = elementType
        self.constant = constant
    }

    init(constant: Tensor) {
        self.init(shape: constant.shape, elementType: constant.elementType, constant: constant)
    }

    var count: Int { shape.reduce(1, *) }
}

/// An output an operator announces: its shape, and whether it shares the buffer of one of the inputs (the
/// operators that only rename or reshape).
struct OutputInfo {
    var info: ValueInfo
    var aliasOfInput: Int? = nil

    static func float(_ shape: [Int]) -> OutputInfo { OutputInfo(info: ValueInfo(shape: shape)) }
}

/// The computation of one node for fixed shapes: reads the float inputs (nil for an omitted optional input or a
/// non-float one) and writes the float outputs. Built once per plan, run on every inference.
typealias Kernel = (_ inputs: [UnsafePointer<Float>?], _ outputs: [UnsafeMutablePointer<Float>]) -> Void

/// An ONNX operator with its attributes read and checked at load time.
protocol Operator: Sendable {
    /// The outputs for inputs of these shapes (nil for an omitted optional input).
    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo]
    /// The kernel for these inputs and outputs; nil when every output is an alias or a constant.
    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel?
}

extension Operator {
    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? { nil }
}

/// Errors about inputs at plan time; the planner prefixes them with the node's name.
func shapeError(_ message: String) -> InferenceError { InferenceError(.invalidInput, message) }

/// Input `index` when present, or an error naming it.
func required(_ inputs: [ValueInfo?], _ index: Int, _ what: String) throws(InferenceError) -> ValueInfo {
    guard index < inputs.count, let value = inputs[index] else { throw shapeError("input \(index) (\(what)) is missing") }
    return value
}

/// Input `index` when it is a float tensor, or an error naming it.
func requiredFloat(_ inputs: [ValueInfo?], _ index: Int, _ what: String) throws(InferenceError) -> ValueInfo {
    let value = try required(inputs, index, what)
    guard value.elementType == .float else {
        throw InferenceError(.unsupportedModel, "input \(index) (\(what)) is \(value.elementType), only float is supported")
    }
    return value
}

/// The fixed integer values of input `index` (shapes, pads, axes), or an error when they are only known at run time.
func constantIntegers(_ inputs: [ValueInfo?], _ index: Int, _ what: String) throws(InferenceError) -> [Int]? {
    guard index < inputs.count, let value = inputs[index] else { return nil }
    guard let constant = value.constant, constant.elementType == .int64 else {
        throw InferenceError(.unsupportedModel, "input \(index) (\(what)) must be a fixed int64 tensor")
    }
    return constant.integers.map { Int($0) }
}

/// An axis in -rank..<rank, made non-negative.
func normalizedAxis(_ axis: Int, rank: Int) throws(InferenceError) -> Int {
    let resolved = axis < 0 ? axis + rank : axis
    guard (0..<max(rank, 1)).contains(resolved) else { throw shapeError("axis \(axis) is out of range for rank \(rank)") }
    return resolved
}
