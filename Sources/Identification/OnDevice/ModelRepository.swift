import Foundation
import PlantGuideInference

/// A folder of on-device models, one subfolder each: `model.onnx`, `config.json` (``ModelConfiguration``) and a
/// labels file. Scripts/fetch-models installs the default one, `plant-cnn`.
public struct ModelRepository: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// The names of the installed models (subfolders with a config.json), sorted.
    public func modelNames() -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return entries.filter { FileManager.default.fileExists(atPath: directory.appendingPathComponent("\($0)/config.json").path) }.sorted()
    }

    /// Loads one model: its configuration, labels and graph, checked against each other.
    /// - Throws: ``ModelRepositoryError`` saying which file is wrong and how.
    public func load(_ name: String) throws -> InstalledModel {
        let folder = directory.appendingPathComponent(name)
        let configuration: ModelConfiguration
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            configuration = try decoder.decode(ModelConfiguration.self, from: Data(contentsOf: folder.appendingPathComponent("config.json")))
        } catch {
            throw ModelRepositoryError("\(name)/config.json: \(error)")
        }
        let labels: [ModelLabel]
        do {
            labels = try ModelLabel.read(tsv: String(decoding: Data(contentsOf: folder.appendingPathComponent(configuration.labels)), as: UTF8.self))
        } catch {
            throw ModelRepositoryError("\(name)/\(configuration.labels): \(error)")
        }
        let model: InferenceModel
        do { model = try InferenceModel(contentsOf: folder.appendingPathComponent("model.onnx")) } catch {
            throw ModelRepositoryError("\(name)/model.onnx: \(error.message)")
        }
        guard let input = model.inputs.first(where: { $0.name == configuration.input.name }), model.inputs.count == 1 else {
            throw ModelRepositoryError("\(name): the model's inputs \(model.inputs.map(\.name)) are not the one configured, '\(configuration.input.name)'")
        }
        let expected: [Int?] = [nil, 3, configuration.input.height, configuration.input.width]
        if let shape = input.shape, shape.count != 4 || !zip(shape.dropFirst(), expected.dropFirst()).allSatisfy({ $0 == nil || $0 == $1 }) {
            let configured = "3×\(configuration.input.height)×\(configuration.input.width)"
            throw ModelRepositoryError(
                "\(name): input shape \(shape.map { $0.map(String.init) ?? "?" }) does not fit the configured \(configured)")
        }
        guard let output = model.outputs.first(where: { $0.name == configuration.output.name }) else {
            throw ModelRepositoryError("\(name): the model has no output '\(configuration.output.name)'")
        }
        guard configuration.output.kind == .embedding else {
            if let classes = output.shape?.last ?? nil, classes != labels.count {
                throw ModelRepositoryError("\(name): the model has \(classes) classes but \(configuration.labels) has \(labels.count) labels")
            }
            return InstalledModel(configuration: configuration, labels: labels, model: model)
        }
        guard let file = configuration.output.textEmbeddings else {
            throw ModelRepositoryError("\(name)/config.json: an embedding output needs text_embeddings, the file of the labels' embeddings")
        }
        let embeddings: LabelEmbeddings
        do {
            embeddings = try LabelEmbeddings(float32: Data(contentsOf: folder.appendingPathComponent(file)), labels: labels.count)
        } catch let error as ModelRepositoryError {
            throw ModelRepositoryError("\(name)/\(file): \(error.description)")
        } catch {
            throw ModelRepositoryError("\(name)/\(file): \(error.localizedDescription)")
        }
        if let dimension = output.shape?.last ?? nil, dimension != embeddings.dimension {
            throw ModelRepositoryError("\(name): the model's embedding has \(dimension) values but \(file) has rows of \(embeddings.dimension)")
        }
        return InstalledModel(configuration: configuration, labels: labels, model: model, labelEmbeddings: embeddings)
    }
}

/// A model ready to run.
public struct InstalledModel: Sendable {
    public var configuration: ModelConfiguration
    public var labels: [ModelLabel]
    public var model: InferenceModel
    /// For an embedding model: the labels' text embeddings, which its image embeddings are compared with.
    public var labelEmbeddings: LabelEmbeddings?
}

/// One class: the scientific name, and any extra columns (common_name, condition, ...).
public struct ModelLabel: Sendable, Equatable {
    public var scientificName: String
    public var commonName: String?
    public var extra: [String: String]

    public init(scientificName: String, commonName: String? = nil, extra: [String: String] = [:]) {
        self.scientificName = scientificName
        self.commonName = commonName
        self.extra = extra
    }

    /// Reads a TSV whose first line names the columns; `scientific_name` is required.
    static func read(tsv: String) throws -> [ModelLabel] {
        var lines = tsv.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        guard !lines.isEmpty else { throw ModelRepositoryError("the labels file is empty") }
        let header = lines.removeFirst()
        guard let nameColumn = header.firstIndex(of: "scientific_name") else {
            throw ModelRepositoryError("the first line must name the columns, one of them scientific_name")
        }
        return try lines.enumerated().map { number, fields in
            guard fields.count == header.count, !fields[nameColumn].isEmpty else {
                throw ModelRepositoryError("line \(number + 2) has \(fields.count) fields, expected \(header.count) with a scientific name")
            }
            var extra: [String: String] = [:]
            for (column, value) in zip(header, fields) where column != "scientific_name" && column != "common_name" && !value.isEmpty {
                extra[column] = value
            }
            let common = header.firstIndex(of: "common_name").map { fields[$0] }
            return ModelLabel(scientificName: fields[nameColumn], commonName: common?.isEmpty == false ? common : nil, extra: extra)
        }
    }
}

/// A model folder that cannot be used, and why.
public struct ModelRepositoryError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
