import Foundation
import PlantGuideCore
import PlantGuideInference
import PlantGuideTestSupport
import Testing

/// Whole networks against onnxruntime, and what loading refuses.
@Suite(.cpuHeavy) struct ModelTests {
    /// The convolutional families, and small ViT, DeiT, Swin and ConvNeXt graphs as torch.onnx.export writes them
    /// (computed shapes, LayerNorm as an operator or decomposed, GELU through Erf or Gelu), at batch 1 and 8; and
    /// the Linear layers and depthwise convolutions the packed and whole-image kernels take.
    @Test("whole models match onnxruntime within 1e-4 of their output range", arguments: [
        "plant-cnn", "mobilenetv2", "resnet18", "vit", "vit-opset13", "vit-gelu20", "deit", "swin", "swin-opset17", "convnext",
        "convnext-opset13", "linear-packed", "depthwise-small",
    ])
    func matchesOnnxRuntime(_ name: String) async throws {
        var test = NodeTest(directory: try ModelFixtures.testModel(name))
        test.relativeTolerance = 1e-4
        test.relativeToRange = true
        // On the suite's own two threads (.cpuHeavy), not BlockingWork's eight: thirteen models run at once there
        // took every core for tens of seconds, and the timing tests beside them waited as long.
        let outcome = try test.run()
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.dataSets == 2)
        #expect(outcome.maxAbsoluteError / outcome.maxExpected < 1e-4)
    }

    @Test("a batch gives each image the answer it gets alone")
    func batchMatchesSingles() async throws {
        // Seconds of CPU: on the suite's own threads (.cpuHeavy), off the cooperative pool the RPC tests beside it need.
        let model = try InferenceModel(contentsOf: ModelFixtures.testModel("mobilenetv2").appendingPathComponent("model.onnx"))
        let session = InferenceSession(model: model)
        let count = 3 * 224 * 224
        let images = (0..<3).map { seed in (0..<count).map { Float(sin(Double($0 * (seed + 1)) * 0.001)) } }
        let batch = try session.run(["image": Tensor(shape: [3, 3, 224, 224], floats: images.flatMap { $0 })])["logits"]!
        #expect(batch.shape == [3, 1000])
        for (index, image) in images.enumerated() {
            let single = try session.run(["image": Tensor(shape: [1, 3, 224, 224], floats: image)])["logits"]!
            let row = Array(batch.floats[index * 1000..<(index + 1) * 1000])
            let largest = single.floats.map(abs).max()!
            #expect(zip(row, single.floats).allSatisfy { abs($0 - $1) <= 1e-5 * largest })
        }
        // Run again on the cached plan: same answer.
        let again = try session.run(["image": Tensor(shape: [3, 3, 224, 224], floats: images.flatMap { $0 })])["logits"]!
        #expect(again == batch)
    }

    @Test("wrong inputs are refused with the expected shape")
    func wrongInputs() throws {
        let model = try InferenceModel(contentsOf: ModelFixtures.testModel("plant-cnn").appendingPathComponent("model.onnx"))
        let session = InferenceSession(model: model)
        #expect(model.inputs.map(\.name) == ["image"])
        #expect(model.inputs[0].shape == [nil, 3, 128, 128])
        let error = #expect(throws: InferenceError.self) {
            try session.run(["image": Tensor(shape: [1, 3, 64, 64], floats: Array(repeating: 0, count: 3 * 64 * 64))])
        }
        #expect(error?.message == "input 'image' has shape [1, 3, 64, 64], the model expects [?, 3, 128, 128]")
        #expect(throws: InferenceError.self) { try session.run([:]) }
    }

    @Test("an unsupported operator is a load error naming the node")
    func unsupportedOperator() {
        var model = Self.model(nodes: [Self.node("Relu", ["x"], ["r"], name: "first"), Self.node("LSTM", ["r"], ["y"], name: "rnn")])
        let error = #expect(throws: InferenceError.self) { try InferenceModel(model) }
        #expect(error?.code == .unsupportedModel)
        #expect(error?.message.hasPrefix("node 'rnn' (LSTM): operator LSTM is not supported") == true)

        model.graph.node[1].opType = "Relu"
        model.graph.node[1].input = ["nowhere"]
        let dangling = #expect(throws: InferenceError.self) { try InferenceModel(model) }
        #expect(dangling?.message == "node 'rnn' (Relu): input 'nowhere' is not produced by any earlier node")
    }

    @Test("a value only known at run time where one known before is needed is a load error naming the node")
    func runTimeValueWhereConstantNeeded() {
        // Equal of the image itself: shape tests are evaluated at plan time, float comparisons at run time are not.
        let model = Self.model(nodes: [Self.node("Equal", ["x", "x"], ["y"], name: "same")], inputShape: [1, 3, 8, 8])
        let error = #expect(throws: InferenceError.self) { try InferenceModel(model) }
        #expect(error?.code == .unsupportedModel)
        #expect(error?.message == "node 'same' (Equal): Equal of values computed at run time is not supported, only of values known before it")
    }

    @Test("weights that do not fit are a load error naming the node")
    func shapeMismatchAtLoad() {
        var weights = Tensor(shape: [8, 4, 3, 3], floats: Array(repeating: 0.1, count: 8 * 4 * 9)).proto(name: "w")
        weights.name = "w"
        var model = Self.model(nodes: [Self.node("Conv", ["x", "w"], ["y"], name: "conv1")], inputShape: [1, 3, 8, 8])
        model.graph.initializer = [weights]
        let error = #expect(throws: InferenceError.self) { try InferenceModel(model) }
        #expect(error?.message == "node 'conv1' (Conv): W [8, 4, 3, 3] does not fit 3 input channels in 1 groups")
    }

    @Test("a file that is not ONNX is a clear load error")
    func malformedFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-model-\(UUID()).onnx")
        try Data("this is not protobuf \u{1}\u{2}\u{3}".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let error = #expect(throws: InferenceError.self) { try InferenceModel(contentsOf: url) }
        #expect(error?.code == .malformedModel)
        #expect(error?.message.contains("is not an ONNX model") == true)
        let missing = #expect(throws: InferenceError.self) { try InferenceModel(contentsOf: url.appendingPathExtension("gone")) }
        #expect(missing?.message.hasPrefix("cannot read") == true)
    }

    static func node(_ type: String, _ inputs: [String], _ outputs: [String], name: String) -> Onnx_NodeProto {
        var node = Onnx_NodeProto()
        node.opType = type
        node.input = inputs
        node.output = outputs
        node.name = name
        return node
    }

    static func model(nodes: [Onnx_NodeProto], inputShape: [Int64] = [1, 4]) -> Onnx_ModelProto {
        func port(_ name: String, _ shape: [Int64]?) -> Onnx_ValueInfoProto {
            var tensor = Onnx_TypeProto.Tensor()
            tensor.elemType = Int32(Onnx_TensorProto.DataType.float.rawValue)
            if let shape {
                tensor.shape.dim = shape.map { size in
                    var dimension = Onnx_TensorShapeProto.Dimension()
                    dimension.dimValue = size
                    return dimension
                }
            }
            var value = Onnx_ValueInfoProto()
            value.name = name
            value.type.tensorType = tensor
            return value
        }
        var model = Onnx_ModelProto()
        var opset = Onnx_OperatorSetIdProto()
        opset.version = 13
        model.opsetImport = [opset]
        model.graph.node = nodes
        model.graph.input = [port("x", inputShape)]
        model.graph.output = [port(nodes.last!.output[0], nil)]
        return model
    }
}
