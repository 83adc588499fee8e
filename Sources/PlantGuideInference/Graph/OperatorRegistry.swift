/// The ONNX operators this executor runs (default domain), and how each is read from its node.
public enum OperatorRegistry {
    /// Every supported operator type, sorted.
    public static var supported: [String] { factories.keys.sorted() }

    typealias Factory = @Sendable (_ attributes: NodeAttributes, _ opset: Int, _ node: Onnx_NodeProto) throws(InferenceError) -> any Operator

    static func make(_ node: Onnx_NodeProto, opset: Int, description: String) throws(InferenceError) -> any Operator {
        guard node.domain.isEmpty || node.domain == "ai.onnx" else {
            throw InferenceError(.unsupportedModel, "\(description): operators of domain '\(node.domain)' are not supported")
        }
        guard let factory = factories[node.opType] else {
            throw InferenceError(
                .unsupportedModel,
                "\(description): operator \(node.opType) is not supported (supported: \(supported.joined(separator: ", ")))")
        }
        let attributes = try NodeAttributes(node, description: description)
        return try factory(attributes, opset, node)
    }

    private static let factories: [String: Factory] = [
        "Conv": { a, _, _ throws(InferenceError) in ConvOperator(window: try WindowAttributes(a), groups: a.int("group", default: 1)) },
        "Gemm": { a, _, _ in
            GemmOperator(
                alpha: a.float("alpha", default: 1), beta: a.float("beta", default: 1),
                transposeA: a.int("transA", default: 0) != 0, transposeB: a.int("transB", default: 0) != 0)
        },
        "MatMul": { _, _, _ in MatMulOperator() },
        "Add": { a, opset, _ throws(InferenceError) in try legacyBroadcast(a, opset); return BinaryOperator(function: .add) },
        "Mul": { a, opset, _ throws(InferenceError) in try legacyBroadcast(a, opset); return BinaryOperator(function: .multiply) },
        "Sub": { _, _, _ in BinaryOperator(function: .subtract) },
        "Div": { _, _, _ in BinaryOperator(function: .divide) },
        "Pow": { _, _, _ in BinaryOperator(function: .power) },
        "Relu": { _, _, _ in ActivationOperator(.relu) },
        "Sqrt": { _, _, _ in ActivationOperator(.sqrt) },
        "Reciprocal": { _, _, _ in ActivationOperator(.reciprocal) },
        "Erf": { _, _, _ in ActivationOperator(.erf) },
        "Tanh": { _, _, _ in ActivationOperator(.tanh) },
        "Gelu": { a, _, _ throws(InferenceError) in
            let approximate = a.string("approximate", default: "none")
            guard ["none", "tanh"].contains(approximate) else { throw a.error("approximate '\(approximate)' is not supported") }
            return ActivationOperator(.gelu(tanhApproximation: approximate == "tanh"))
        },
        "LayerNormalization": { a, _, _ in LayerNormalizationOperator(axis: a.int("axis", default: -1), epsilon: a.float("epsilon", default: 1e-5)) },
        "Shape": { a, _, _ in ShapeOperator(start: a.int("start", default: 0), end: a.has("end") ? a.int("end", default: 0) : nil) },
        "Size": { _, _, _ in SizeOperator() },
        "Gather": { a, _, _ in GatherOperator(axis: a.int("axis", default: 0)) },
        "Unsqueeze": { a, opset, _ in UnsqueezeOperator(attributeAxes: opset < 13 ? a.ints("axes") ?? [] : nil) },
        "Squeeze": { a, opset, _ in SqueezeOperator(attributeAxes: opset < 13 ? a.ints("axes") : nil) },
        "Slice": { a, opset, _ in
            SliceOperator(attributes: opset < 10 ? (a.ints("starts") ?? [], a.ints("ends") ?? [], a.ints("axes")) : nil)
        },
        "Expand": { _, _, _ in ExpandOperator() },
        "Split": { a, opset, node in
            SplitOperator(
                axis: a.int("axis", default: 0), attributeSizes: opset < 13 ? a.ints("split") : nil,
                parts: opset >= 18 && a.has("num_outputs") ? a.int("num_outputs", default: 1) : node.output.count)
        },
        "Where": { _, _, _ in WhereOperator() },
        "Equal": { _, _, _ in EqualOperator() },
        "ConstantOfShape": { a, _, _ throws(InferenceError) in ConstantOfShapeOperator(value: try a.tensor("value")) },
        "Range": { _, _, _ in RangeOperator() },
        "Cast": { a, _, _ throws(InferenceError) in
            let to = a.int("to", default: 0)
            guard let target = CastOperator.elementType(to) else { throw a.error("cast to type \(to) is not supported") }
            return CastOperator(target: target)
        },
        "Sigmoid": { _, _, _ in ActivationOperator(.sigmoid) },
        "HardSigmoid": { a, _, _ in
            ActivationOperator(.hardSigmoid(alpha: a.float("alpha", default: 0.2), beta: a.float("beta", default: 0.5)))
        },
        "HardSwish": { _, _, _ in ActivationOperator(.hardSwish) },
        "Clip": { a, opset, _ in
            opset < 11
                ? ActivationOperator(.clip(min: a.float("min", default: -.greatestFiniteMagnitude), max: a.float("max", default: .greatestFiniteMagnitude)))
                : ActivationOperator(.identity, boundsFromInputs: true)
        },
        "MaxPool": { a, _, node throws(InferenceError) in
            guard node.output.count == 1 else { throw a.error("the Indices output is not supported") }
            return PoolOperator(kind: .max, window: try WindowAttributes(a))
        },
        "AveragePool": { a, _, _ throws(InferenceError) in
            PoolOperator(kind: .average(countIncludePad: a.int("count_include_pad", default: 0) != 0), window: try WindowAttributes(a))
        },
        "GlobalAveragePool": { _, _, _ in MeanOperator.globalAveragePool },
        "BatchNormalization": { a, _, node throws(InferenceError) in
            guard a.int("training_mode", default: 0) == 0, node.output.count == 1 else {
                throw a.error("training mode is not supported, only inference")
            }
            return BatchNormalizationOperator(epsilon: a.float("epsilon", default: 1e-5))
        },
        "Flatten": { a, _, _ in FlattenOperator(axis: a.int("axis", default: 1)) },
        "Reshape": { a, _, _ in ReshapeOperator(allowZero: a.int("allowzero", default: 0) != 0) },
        "Transpose": { a, _, _ in TransposeOperator(permutation: a.ints("perm")) },
        "Concat": { a, _, _ throws(InferenceError) in
            guard a.has("axis") else { throw a.error(.malformedModel, "attribute axis is required") }
            return ConcatOperator(axis: a.int("axis", default: 0))
        },
        "Softmax": { a, opset, _ in
            SoftmaxOperator(axis: a.int("axis", default: opset < 13 ? 1 : -1), flattensToRows: opset < 13)
        },
        "Dropout": { a, opset, _ throws(InferenceError) in
            if opset < 7 && a.int("is_test", default: 0) == 0 { throw a.error("training mode (is_test = 0) is not supported") }
            return PassThroughOperator(isDropout: true)
        },
        "Identity": { _, _, _ in PassThroughOperator() },
        "Pad": { a, opset, _ throws(InferenceError) in
            let modeName = a.string("mode", default: "constant")
            guard let mode = PadOperator.Mode(rawValue: modeName) else { throw a.error("mode '\(modeName)' is not supported") }
            return PadOperator(
                mode: mode, attributePads: opset < 11 ? (a.ints("pads") ?? a.ints("paddings") ?? []) : nil,
                attributeValue: a.float("value", default: 0))
        },
        "ReduceMean": { a, opset, _ in
            MeanOperator(
                axes: opset < 18 ? a.ints("axes") : nil, keepDimensions: a.int("keepdims", default: 1) != 0,
                noopWithEmptyAxes: a.int("noop_with_empty_axes", default: 0) != 0, isGlobalPool: false)
        },
        "Constant": { a, _, _ throws(InferenceError) in
            if let tensor = try a.tensor("value") { return ConstantOperator(value: tensor) }
            if a.has("value_float") { return ConstantOperator(value: Tensor(shape: [], floats: [a.float("value_float", default: 0)])) }
            if let floats = a.floats("value_floats") { return ConstantOperator(value: Tensor(shape: [floats.count], floats: floats)) }
            if a.has("value_int") { return ConstantOperator(value: Tensor(shape: [], integers: [Int64(a.int("value_int", default: 0))])) }
            if let ints = a.ints("value_ints") { return ConstantOperator(value: Tensor(shape: [ints.count], integers: ints.map { Int64($0) })) }
            throw a.error("only float and integer constant values are supported")
        },
    ]

    /// Add and Mul before opset 7 broadcast only when asked to, along an axis: not supported.
    private static func legacyBroadcast(_ attributes: NodeAttributes, _ opset: Int) throws(InferenceError) {
        if opset < 7 && attributes.int("broadcast", default: 0) != 0 {
            throw attributes.error("legacy broadcasting (opset < 7) is not supported")
        }
    }
}
