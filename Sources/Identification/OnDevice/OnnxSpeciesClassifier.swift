import Foundation
import PlantGuideImaging
import PlantGuideInference

/// A model from the model repository as the service's on-device classifier: photos preprocessed as its
/// configuration says, run through the dynamic batcher, outputs turned into ranked, labelled guesses.
public final class OnnxSpeciesClassifier: SpeciesClassifier {
    public let installed: InstalledModel
    private let preprocessor: ImagePreprocessor
    private let batcher: InferenceBatcher

    public init(_ installed: InstalledModel, batching: BatchingConfiguration = .init()) {
        self.installed = installed
        let input = installed.configuration.input
        preprocessor = ImagePreprocessor(input: input)
        batcher = InferenceBatcher(
            model: installed.model, inputName: input.name, outputName: installed.configuration.output.name,
            imageShape: [3, input.height, input.width], configuration: batching)
    }

    public var name: String { installed.configuration.name }
    public var version: String { installed.configuration.version }
    public var classes: Int { installed.labels.count }
    public var inputSize: (width: Int, height: Int) { (installed.configuration.input.width, installed.configuration.input.height) }
    public var isExperimental: Bool { installed.configuration.isExperimental }
    public var batching: BatchingConfiguration { batcher.configuration }

    /// Batches run, images, the largest batch, requests refused and expired.
    public var statistics: BatchStatistics { batcher.statistics }

    /// Stops the model's worker threads.
    public func stop() { batcher.stop() }

    public func classify(_ images: [RGBImage], maxResults: Int, deadline: ContinuousClock.Instant) async throws -> [[SpeciesGuess]] {
        let perImage = preprocessor.count
        var inputs = [Float](repeating: 0, count: perImage * images.count)
        inputs.withUnsafeMutableBufferPointer { buffer in
            for (index, image) in images.enumerated() {
                preprocessor.write(image, into: UnsafeMutableBufferPointer(rebasing: buffer[(index * perImage)..<((index + 1) * perImage)]))
            }
        }
        let outputs = try await batcher.run(inputs, images: images.count, deadline: deadline)
        let row = outputs.count / max(images.count, 1)
        let output = installed.configuration.output
        return (0..<images.count).map { index in
            let scores = outputs[(index * row)..<((index + 1) * row)]
            switch output.kind {
            case .logits: return guesses(Self.softmax(Array(scores)))
            case .probabilities: return guesses(Array(scores))
            case .embedding:
                // ModelRepository.load checked that an embedding model has its labels' embeddings.
                return guesses(installed.labelEmbeddings?.probabilities(for: scores, scale: output.logitScale ?? 100) ?? [])
            }
        }
    }

    /// Every class with its score, best first (several classes may share a species: the caller sums them).
    private func guesses(_ probabilities: [Float]) -> [SpeciesGuess] {
        probabilities.indices.sorted { probabilities[$0] > probabilities[$1] }.prefix(50).map { index in
            let label = installed.labels[index]
            var guess = SpeciesGuess(scientificName: label.scientificName, score: Double(probabilities[index]), source: .onDevice)
            guess.commonNames = label.commonName.map { [$0] } ?? []
            guess.attributes = label.extra
            guess.attributes["model"] = "\(name)@\(version)"
            if isExperimental { guess.attributes["experimental"] = "true" }
            return guess
        }
    }

    static func softmax(_ logits: [Float]) -> [Float] {
        let largest = logits.max() ?? 0
        let exponentials = logits.map { exp($0 - largest) }
        let sum = exponentials.reduce(0, +)
        return exponentials.map { $0 / sum }
    }
}
