import PlantGuideImaging

/// An on-device model that names plants in photos: the slot the ONNX executor fills (issue 6). The service runs
/// without one, answering through Pl@ntNet, and says so in its status.
public protocol SpeciesClassifier: Sendable {
    /// Name, version, classes and input size, for GetStatus.
    var name: String { get }
    var version: String { get }
    var classes: Int { get }
    var inputSize: (width: Int, height: Int) { get }
    /// True when its answers must not be shown as a confident identification.
    var isExperimental: Bool { get }

    /// The ranked guesses for each image (already upright, at least the input size).
    func classify(_ images: [RGBImage], maxResults: Int) async throws -> [[SpeciesGuess]]
}
