import Foundation
import Testing

@testable import PlantGuideInference

/// A batch run as smaller batches where its activations would not stay in cache, with the same answers.
struct SubBatchingTests {
    @Test("the L3's size is read as sysfs writes it, and anything else is no size")
    func cacheSize() {
        #expect(SubBatching.cacheBytes("32768K\n") == 32 << 20)
        #expect(SubBatching.cacheBytes("2M") == 2 << 20)
        #expect(SubBatching.cacheBytes("1048576") == 1 << 20)
        #expect(SubBatching.cacheBytes("") == nil)
        #expect(SubBatching.cacheBytes("0K") == nil)
        #expect(SubBatching.cacheBytes("large") == nil)
    }

    @Test("sub-batches are as large as the budget allows, and the whole batch where weights outgrow the cache")
    func sizes() {
        let budget = SubBatching.budget
        #expect(SubBatching.size(batch: 8, largestValueBytes: 8 * budget, weightBytes: 0) == 1)
        #expect(SubBatching.size(batch: 8, largestValueBytes: 8 * budget / 3, weightBytes: 0) == 3)
        #expect(SubBatching.size(batch: 8, largestValueBytes: budget, weightBytes: 0) == 8)
        #expect(SubBatching.size(batch: 8, largestValueBytes: 8 * budget, weightBytes: 4 * budget + 1) == 8)
    }

    @Test("a model that mixes its images keeps running the batch whole; one of a fixed batch is never cut")
    func mixingModelRunsWhole() throws {
        // y = x − mean over the batch: each image's answer depends on the others. Each image takes the whole budget,
        // so that the session tries sub-batches of one. The budget is the test's own: the machine's is a quarter of its
        // L3, 65 MB on a Xeon whose sysfs gives 260 MB, where this test's batch took 40 s on the cooperative pool.
        let budget = 1 << 20, width = budget / MemoryLayout<Float>.size
        var mean = ModelTests.node("ReduceMean", ["x"], ["mean"], name: "mean")
        var axes = Onnx_AttributeProto()
        axes.name = "axes"
        axes.type = .ints
        axes.ints = [0]
        mean.attribute = [axes]
        var proto = ModelTests.model(nodes: [mean, ModelTests.node("Sub", ["x", "mean"], ["y"], name: "centred")], inputShape: [4, Int64(width)])
        proto.graph.input[0].type.tensorType.shape.dim[0].dimParam = "batch"
        let session = InferenceSession(model: try InferenceModel(proto), subBatchBudget: budget)
        #expect(SubBatching.size(batch: 4, largestValueBytes: 4 * width * 4, weightBytes: 0, budget: budget) == 1)
        let x = Tensor(shape: [4, width], floats: (0..<4 * width).map { Float($0 / width) })
        for _ in 0..<2 {
            let y = try session.run(["x": x])["y"]!
            // The batch's mean is 1.5: image i is i − 1.5 everywhere (split, each would be 0).
            #expect(y.shape == [4, width])
            #expect([0, 1, 2, 3].allSatisfy { y.floats[$0 * width] == Float($0) - 1.5 && y.floats[$0 * width + width - 1] == Float($0) - 1.5 })
        }
        proto.graph.input[0].type.tensorType.shape.dim[0].dimValue = 4
        let fixed = try InferenceSession(model: InferenceModel(proto), subBatchBudget: budget).run(["x": x])["y"]!
        #expect(fixed.floats[0] == -1.5 && fixed.floats[3 * width] == 1.5)
    }
}
