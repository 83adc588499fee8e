import Foundation
import Identification
import PlantGuideTestSupport
import Testing

/// A model folder that does not fit together is refused at load, saying which file is wrong and how.
@Suite("Model repository errors", .cpuHeavy)
final class ModelRepositoryTests {
    private let root = FileManager.default.temporaryDirectory.appendingPathComponent("models-\(UUID().uuidString)")

    deinit { try? FileManager.default.removeItem(at: root) }

    /// A copy of plant-cnn (the model linked, not copied) with `config.json` and `labels.tsv` as given.
    private func model(config: String, labels: String) throws -> ModelRepository {
        let folder = root.appendingPathComponent("broken")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("model.onnx"),
            withDestinationURL: ModelFixtures.modelRepository.appendingPathComponent("plant-cnn/model.onnx"))
        try Data(config.utf8).write(to: folder.appendingPathComponent("config.json"))
        try Data(labels.utf8).write(to: folder.appendingPathComponent("labels.tsv"))
        return ModelRepository(directory: root)
    }

    private static func config(input: String = "image", width: Int = 128, output: String = "logits") -> String {
        """
        {"name": "broken", "version": "1", "task": "species", "labels": "labels.tsv",
         "output": {"name": "\(output)", "kind": "logits"},
         "input": {"name": "\(input)", "width": \(width), "height": 128}}
        """
    }

    private static let labels38 = "scientific_name\n" + (0..<38).map { "Species \($0)\n" }.joined()

    private func loadError(config: String, labels: String = labels38) throws -> String {
        let repository = try model(config: config, labels: labels)
        #expect(repository.modelNames() == ["broken"])
        do {
            _ = try repository.load("broken")
            return "loaded"
        } catch {
            return "\(error)"
        }
    }

    @Test("labels that do not match the classes")
    func labelCount() throws {
        let message = try loadError(config: Self.config(), labels: "scientific_name\nMalus domestica\n")
        #expect(message == "broken: the model has 38 classes but labels.tsv has 1 labels")
    }

    @Test("a labels file without its header")
    func labelHeader() throws {
        #expect(try loadError(config: Self.config(), labels: "Malus domestica\n").hasPrefix(
            "broken/labels.tsv: the first line must name the columns"))
    }

    @Test("an input name or size the model does not have")
    func inputMismatch() throws {
        #expect(try loadError(config: Self.config(input: "pixels")).contains("are not the one configured, 'pixels'"))
        #expect(try loadError(config: Self.config(width: 224)).contains("does not fit the configured 3×128×224"))
        #expect(try loadError(config: Self.config(output: "probabilities")) == "broken: the model has no output 'probabilities'")
    }

    @Test("a config.json that is not valid")
    func badConfig() throws {
        #expect(try loadError(config: "{\"name\": 3}").hasPrefix("broken/config.json: "))
        let badStd = Self.config().replacingOccurrences(of: "\"height\": 128", with: "\"height\": 128, \"std\": [0, 1, 1]")
        #expect(try loadError(config: badStd).contains("std ≠ 0"))
    }
}
