import Foundation

/// Where the models the inference tests need are: built by Scripts/test (Scripts/fetch-models and
/// Scripts/models/make_test_models.py) before the Swift tests run, never read from outside the repository.
public enum ModelFixtures {
    /// The package's root folder.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The model repository with the default model (`models/plant-cnn`); PLANTGUIDE_TEST_MODEL_REPOSITORY overrides.
    public static var modelRepository: URL {
        ProcessInfo.processInfo.environment["PLANTGUIDE_TEST_MODEL_REPOSITORY"].map { URL(fileURLWithPath: $0) }
            ?? repositoryRoot.appendingPathComponent("models")
    }

    /// Generated models in node-test layout (mobilenetv2, resnet18, plant-cnn, pad_*_float).
    public static var testModels: URL {
        ProcessInfo.processInfo.environment["PLANTGUIDE_TEST_MODELS"].map { URL(fileURLWithPath: $0) }
            ?? repositoryRoot.appendingPathComponent(".build/test-models")
    }

    /// ONNX's backend node tests from Debian's libonnx-testdata.
    public static let onnxNodeTests = URL(fileURLWithPath: "/usr/share/libonnx-testdata/data/node")

    /// A folder under `testModels`, with a message saying how to make it when it is missing.
    public static func testModel(_ name: String) throws -> URL {
        let url = testModels.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.appendingPathComponent("model.onnx").path) else {
            throw MissingFixture(message: "\(url.path) is missing: run Scripts/test, or Scripts/fetch-models and "
                + "python3 Scripts/models/make_test_models.py .build/test-models models")
        }
        return url
    }

    public struct MissingFixture: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }
}
