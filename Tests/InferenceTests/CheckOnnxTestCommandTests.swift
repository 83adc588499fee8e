import Foundation
import PlantGuideInference
import PlantGuideTestSupport
import Testing

/// `plantguide-identification check-onnx-test DIR` as a real process: exit 0 on pass, 1 on mismatch, 2 when the
/// model cannot be loaded.
@Suite struct CheckOnnxTestCommandTests {
    func check(_ folder: URL) async throws -> (status: Int32, output: String) {
        let outcome = try await ChildProcess.run(BuildProducts.url(of: "plantguide-identification"), ["check-onnx-test", folder.path])
        return (outcome.status, outcome.output)
    }

    @Test("passing, failing and unloadable folders")
    func exitCodes() async throws {
        let passing = try await check(ModelFixtures.onnxNodeTests.appendingPathComponent("test_conv_with_strides_padding"))
        #expect(passing.status == 0)
        #expect(passing.output.hasPrefix("PASS test_conv_with_strides_padding (1 data set"))

        let refused = try await check(ModelFixtures.onnxNodeTests.appendingPathComponent("test_add_uint8"))
        #expect(refused.status == 2)
        #expect(refused.output.contains("only float, int64 and bool are supported"))

        // A copy of test_relu whose expected output is wrong in one element.
        let source = ModelFixtures.onnxNodeTests.appendingPathComponent("test_relu")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("test_relu_broken-\(UUID())")
        try FileManager.default.copyItem(at: source, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let outputFile = copy.appendingPathComponent("test_data_set_0/output_0.pb")
        var expected = try Tensor(Onnx_TensorProto(serializedBytes: Data(contentsOf: outputFile)))
        expected.floats[0] += 1
        try FileManager.default.removeItem(at: outputFile)
        try expected.proto().serializedData().write(to: outputFile)
        let failing = try await check(copy)
        #expect(failing.status == 1)
        #expect(failing.output.contains("element 0 is"))
    }
}
