import CInferenceKernels
import Foundation

/// The element-wise functions of one input: the activations image classifiers put after their layers (Relu and
/// Clip are also fused into Conv and Gemm at load), and the transformers' Sqrt, Reciprocal, Erf, Tanh and Gelu.
enum Activation: Sendable, Equatable {
    case identity
    case relu
    case clip(min: Float, max: Float)
    case sigmoid
    case hardSigmoid(alpha: Float, beta: Float)
    case hardSwish
    case sqrt
    case reciprocal
    case erf
    case tanh
    /// GELU, x·Φ(x): exact (with erf), or the tanh approximation.
    case gelu(tanhApproximation: Bool)

    /// Applies the function to `count` elements, from `input` into `output` (which may be the same memory).
    func apply(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int) {
        switch self {
        case .identity:
            if UnsafePointer(output) != input { output.update(from: input, count: count) }
        case .relu:
            for i in 0..<count { output[i] = max(input[i], 0) }
        case .clip(let low, let high):
            for i in 0..<count { output[i] = min(max(input[i], low), high) }
        case .sigmoid:
            for i in 0..<count {
                let x = input[i]
                output[i] = x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x))
            }
        case .hardSigmoid(let alpha, let beta):
            for i in 0..<count { output[i] = min(max(alpha * input[i] + beta, 0), 1) }
        case .hardSwish:
            for i in 0..<count {
                let x = input[i]
                output[i] = x * min(max(x / 6 + 0.5, 0), 1)
            }
        case .sqrt:
            for i in 0..<count { output[i] = input[i].squareRoot() }
        case .reciprocal:
            for i in 0..<count { output[i] = 1 / input[i] }
        case .erf:
            pg_erf(input, output, count)
        case .tanh:
            for i in 0..<count { output[i] = tanhf(input[i]) }
        case .gelu(tanhApproximation: false):
            pg_gelu(input, output, count)
        case .gelu(tanhApproximation: true):
            for i in 0..<count {
                let x = input[i]
                output[i] = 0.5 * x * (1 + tanhf(0.797_884_6 * (x + 0.044_715 * x * x * x)))
            }
        }
    }
}

extension Activation {
    /// What the C kernels apply as they store (a PG_ACTIVATION_* and its bounds): Relu and Clip. The others come
    /// back as PG_ACTIVATION_NONE, and the caller applies them after (``isFusedByKernels`` is false).
    var fusedEpilogue: (kind: Int32, low: Float, high: Float) {
        switch self {
        case .relu: (Int32(PG_ACTIVATION_RELU), 0, 0)
        case .clip(let low, let high): (Int32(PG_ACTIVATION_CLIP), low, high)
        default: (Int32(PG_ACTIVATION_NONE), 0, 0)
        }
    }

    /// Whether the C kernels' epilogue covers this activation (nothing is left to apply after them).
    var isFusedByKernels: Bool { self == .identity || fusedEpilogue.kind != Int32(PG_ACTIVATION_NONE) }

    /// values = activation(values + bias), in place: the epilogue of a layer the activation is fused into.
    func finish(_ values: UnsafeMutablePointer<Float>, count: Int, bias: Float) {
        let (kind, low, high) = fusedEpilogue
        if bias != 0 || kind != Int32(PG_ACTIVATION_NONE) { pg_bias_activation(values, count, bias, kind, low, high) }
        if !isFusedByKernels { apply(values, values, count: count) }
    }
}

/// Relu, Clip, Sigmoid, HardSigmoid, HardSwish, Sqrt, Reciprocal, Erf, Tanh, Gelu: one input, one output of the
/// same shape.
struct ActivationOperator: Operator {
    let activation: Activation
    /// Clip before opset 11 takes its bounds as attributes; later, as optional inputs.
    let boundsFromInputs: Bool

    init(_ activation: Activation, boundsFromInputs: Bool = false) {
        self.activation = activation
        self.boundsFromInputs = boundsFromInputs
    }

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        [.float(try requiredFloat(inputs, 0, "X").shape)]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let count = outputs[0].count
        guard boundsFromInputs else {
            let activation = activation
            return { inputs, outputs in activation.apply(inputs[0]!, outputs[0], count: count) }
        }
        for (index, name) in [(1, "min"), (2, "max")] where index < inputs.count {
            if let bound = inputs[index], bound.elementType != .float || bound.count != 1 {
                throw InferenceError(.unsupportedModel, "input \(index) (\(name)) must be a float scalar")
            }
        }
        // The bounds are read on each run: they may be graph inputs.
        return { inputs, outputs in
            let low = inputs.count > 1 ? inputs[1]?.pointee ?? -.greatestFiniteMagnitude : -.greatestFiniteMagnitude
            let high = inputs.count > 2 ? inputs[2]?.pointee ?? .greatestFiniteMagnitude : .greatestFiniteMagnitude
            Activation.clip(min: low, max: high).apply(inputs[0]!, outputs[0], count: count)
        }
    }
}
