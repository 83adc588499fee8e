import Foundation

/// A candidate species from any source.
public struct SpeciesGuess: Sendable, Equatable {
    public enum Source: Sendable, Equatable { case onDevice, plantnet }

    public var scientificName: String
    public var commonNames: [String] = []
    public var family: String = ""
    public var genus: String = ""
    public var score: Double
    public var source: Source
    public var gbifID: String?
    public var powoID: String?
    public var attributes: [String: String] = [:]

    public init(scientificName: String, score: Double, source: Source) {
        self.scientificName = scientificName
        self.score = score
        self.source = source
    }
}

/// Decides which identifier answers and merges their candidates. Pure: the service feeds it what it has.
///
/// - `onDevice`: only the model; `plantnet`: only the API.
/// - `hybrid` (default): the model first; the API when the model's best score is under the minimum confidence
///   (default 0.7) and the API is configured; with no model installed, the API alone.
/// - Offline mode forces on-device.
/// - Merging: Pl@ntNet's candidates lead (its scores are calibrated over real species), then the model's that it
///   did not name; every candidate keeps its source.
public enum HybridPolicy {
    public enum Method: Sendable { case hybrid, onDevice, plantnet }

    /// What to do next.
    public enum Step: Sendable, Equatable {
        case runModel
        case askPlantNet(reason: String)
        case answer(note: String)
        case refuse(String)
    }

    /// The first step for `method`.
    public static func start(_ method: Method, modelInstalled: Bool, plantnetConfigured: Bool, offline: Bool) -> Step {
        switch (offline ? .onDevice : method) {
        case .onDevice:
            return modelInstalled ? .runModel : .refuse("no on-device model is installed")
        case .plantnet:
            guard !offline else { return .refuse("offline mode allows on-device identification only") }
            return plantnetConfigured ? .askPlantNet(reason: "Pl@ntNet asked for") : .refuse("Pl@ntNet is not configured (PLANTGUIDE_PLANTNET_KEY)")
        case .hybrid:
            if modelInstalled { return .runModel }
            return plantnetConfigured
                ? .askPlantNet(reason: "no on-device model is installed")
                : .refuse("no on-device model is installed and Pl@ntNet is not configured")
        }
    }

    /// The step after the model answered.
    /// An experimental model's answer never counts as confident: hybrid asks Pl@ntNet whenever it can.
    public static func afterModel(
        _ method: Method, best: Double?, minimumConfidence: Double, experimental: Bool = false, plantnetConfigured: Bool, offline: Bool
    ) -> Step {
        let score = best ?? 0
        guard method == .hybrid, !offline else { return .answer(note: experimental ? "on-device only (experimental model)" : "on-device only") }
        if experimental {
            return plantnetConfigured
                ? .askPlantNet(reason: "the on-device model is experimental")
                : .answer(note: "the on-device model is experimental; Pl@ntNet is not configured")
        }
        guard score < minimumConfidence else {
            return .answer(note: String(format: "on-device confidence %.2f ≥ %.2f", score, minimumConfidence))
        }
        guard plantnetConfigured else {
            return .answer(note: String(format: "on-device confidence %.2f < %.2f; Pl@ntNet is not configured", score, minimumConfidence))
        }
        return .askPlantNet(reason: String(format: "on-device confidence %.2f < %.2f", score, minimumConfidence))
    }

    /// Pl@ntNet's candidates first, then the model's others, at most `limit`.
    public static func merge(plantnet: [SpeciesGuess], onDevice: [SpeciesGuess], limit: Int) -> [SpeciesGuess] {
        let named = Set(plantnet.map { $0.scientificName.lowercased() })
        return Array((plantnet + onDevice.filter { !named.contains($0.scientificName.lowercased()) }).prefix(limit))
    }
}
