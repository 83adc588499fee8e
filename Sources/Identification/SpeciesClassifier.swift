import PlantGuideImaging

/// An on-device model that names plants in photos. `OnnxSpeciesClassifier` runs ONNX models from the model
/// repository; without one the service answers through Pl@ntNet and says so in its status.
public protocol SpeciesClassifier: Sendable {
    /// Name, version, classes and input size, for GetStatus.
    var name: String { get }
    var version: String { get }
    var classes: Int { get }
    var inputSize: (width: Int, height: Int) { get }
    /// True when its answers must not be shown as a confident identification.
    var isExperimental: Bool { get }

    /// The ranked guesses for each image (already upright), best first.
    /// - Throws: ``RPCError`` RESOURCE_EXHAUSTED when the model is saturated, DEADLINE_EXCEEDED when the deadline
    ///   passes before the model gets to the images.
    func classify(_ images: [RGBImage], maxResults: Int, deadline: ContinuousClock.Instant) async throws -> [[SpeciesGuess]]
}

extension SpeciesClassifier {
    /// The long side to decode a `width` × `height` photo to, so that both sides still cover the model's input
    /// (the decoder then scales large JPEGs down while decoding).
    public func decodeLongSide(width: Int, height: Int) -> Int {
        let scale = max(Double(inputSize.width) / Double(max(width, 1)), Double(inputSize.height) / Double(max(height, 1)))
        return Int((Double(max(width, height)) * scale).rounded(.up))
    }
}
