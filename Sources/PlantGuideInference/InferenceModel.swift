import Foundation
import SwiftProtobuf

/// A loaded ONNX model: the graph validated, every operator read, weights prepared (batch normalization folded,
/// activations fused, floats in aligned memory). Immutable and shared; run it through an `InferenceSession`.
public final class InferenceModel: Sendable {
    public let inputs: [ModelPort]
    public let outputs: [ModelPort]
    /// The default-domain opset the model was written for.
    public let opset: Int
    /// Operator types used by the graph as loaded (before fusion), for reports.
    public let operatorTypes: [String]
    let nodes: [GraphNode]
    let constants: [String: Tensor]
    let store: ConstantStore
    /// Bytes of the weights as prepared: what a run streams through the cache besides its activations.
    let weightBytes: Int

    /// The oldest and newest default-domain opsets accepted.
    public static let supportedOpsets = 1...21

    public convenience init(contentsOf url: URL) throws(InferenceError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw InferenceError(.malformedModel, "cannot read \(url.path): \(error.localizedDescription)")
        }
        try self.init(serialized: data, source: url.lastPathComponent)
    }

    public convenience init(serialized data: Data, source: String = "the model") throws(InferenceError) {
        let proto: Onnx_ModelProto
        do { proto = try Onnx_ModelProto(serializedBytes: data) } catch {
            throw InferenceError(.malformedModel, "\(source) is not an ONNX model (protobuf: \(error))")
        }
        try self.init(proto)
    }

    public init(_ model: Onnx_ModelProto) throws(InferenceError) {
        _ = try InferenceISA.configured()
        guard model.hasGraph else { throw InferenceError(.malformedModel, "the model has no graph") }
        guard let opset = model.opsetImport.first(where: { $0.domain.isEmpty || $0.domain == "ai.onnx" }).map({ Int($0.version) }) else {
            throw InferenceError(.malformedModel, "the model imports no default-domain opset")
        }
        guard Self.supportedOpsets.contains(opset) else {
            throw InferenceError(.unsupportedModel, "opset \(opset) is not supported (\(Self.supportedOpsets))")
        }
        let graph = model.graph

        var constants: [String: Tensor] = [:]
        for initializer in graph.initializer {
            do { constants[initializer.name] = try Tensor(initializer) } catch {
                throw InferenceError(error.code, "initializer '\(initializer.name)': \(error.message)")
            }
        }
        let inputs = try graph.input.filter { constants[$0.name] == nil }.map { value throws(InferenceError) in try Self.port(value) }
        let outputs = try graph.output.map { value throws(InferenceError) in try Self.port(value) }

        var defined = Set(constants.keys).union(inputs.map(\.name))
        var nodes: [GraphNode] = []
        for (index, node) in graph.node.enumerated() {
            let description = node.name.isEmpty ? "node #\(index) (\(node.opType))" : "node '\(node.name)' (\(node.opType))"
            for input in node.input where !input.isEmpty && !defined.contains(input) {
                throw InferenceError(.malformedModel, "\(description): input '\(input)' is not produced by any earlier node")
            }
            for output in node.output where !output.isEmpty {
                guard defined.insert(output).inserted else {
                    throw InferenceError(.malformedModel, "\(description): output '\(output)' is already defined")
                }
            }
            let op = try OperatorRegistry.make(node, opset: opset, description: description)
            nodes.append(GraphNode(description: description, opType: node.opType, inputs: node.input, outputs: node.output, op: op))
        }
        for output in outputs where !defined.contains(output.name) {
            throw InferenceError(.malformedModel, "graph output '\(output.name)' is not produced by any node")
        }

        operatorTypes = Array(Set(nodes.map(\.opType))).sorted()
        var optimizer = GraphOptimizer(nodes: nodes, constants: constants, graphOutputs: Set(outputs.map(\.name)))
        optimizer.optimize()
        self.inputs = inputs
        self.outputs = outputs
        self.opset = opset
        self.nodes = optimizer.nodes
        self.constants = optimizer.constants
        self.store = ConstantStore(optimizer.constants)
        self.weightBytes = optimizer.constants.values.reduce(0) { $0 + $1.count } * MemoryLayout<Float>.size

        // Plan once for a batch of one: shape errors surface at load, naming the node.
        if inputs.allSatisfy({ $0.shape != nil && $0.elementType == .float }) {
            let infos = Dictionary(uniqueKeysWithValues: inputs.map { port in
                (port.name, ValueInfo(shape: port.shape!.map { $0 ?? 1 }))
            })
            _ = try ExecutionPlan(model: self, inputs: infos)
        }
    }


    /// Sets how many threads OpenBLAS uses for matrix products, process-wide. Serving runs one per worker.
    public static func setMatrixThreads(_ count: Int) {
        OpenBLAS.setThreads(max(1, count))
    }

    /// The kernels in use, for status and benchmarks: "AVX2 kernels, OpenBLAS Haswell" (OpenBLAS, or the built-in
    /// loops without it, keeps attention's batched products and every product on the portable path).
    public static var matrixKernels: String {
        switch InferenceISA.current {
        case .avx512: "AVX-512 kernels, " + OpenBLAS.description
        case .avx2: "AVX2 kernels, " + OpenBLAS.description
        case .portable: "portable kernels, " + OpenBLAS.description
        }
    }

    private static func port(_ value: Onnx_ValueInfoProto) throws(InferenceError) -> ModelPort {
        guard case .tensorType(let tensor)? = value.type.value else {
            throw InferenceError(.unsupportedModel, "'\(value.name)' is not a tensor")
        }
        let elementType: Tensor.ElementType
        switch Onnx_TensorProto.DataType(rawValue: Int(tensor.elemType)) {
        case .float: elementType = .float
        case .int64: elementType = .int64
        case .bool: elementType = .bool
        default:
            throw InferenceError(.unsupportedModel, "'\(value.name)' has element type \(tensor.elemType), only float, int64 and bool are supported")
        }
        let shape: [Int?]? = tensor.hasShape
            ? tensor.shape.dim.map { dimension in
                if case .dimValue(let size)? = dimension.value, size >= 0 { return Int(size) }
                return nil
            }
            : nil
        return ModelPort(name: value.name, elementType: elementType, shape: shape)
    }
}
