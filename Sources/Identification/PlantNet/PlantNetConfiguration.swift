import Foundation

/// How the Pl@ntNet client reaches the identification API. The executable fills it from flags and variables.
public struct PlantNetConfiguration: Sendable {
    /// Default https://my-api.plantnet.org; tests point it at a local fake.
    public var baseURL: URL
    /// From PLANTGUIDE_PLANTNET_KEY; nil means Pl@ntNet is not configured.
    public var apiKey: String?
    /// "all", or a regional flora. Default "all".
    public var project = "all"
    /// Per request. Default 20 s (the caller's deadline may cut it shorter).
    public var timeout: Duration = .seconds(20)
    /// Identifications a day the key's plan allows. Default 500 (Pl@ntNet's free plan); status reports usage
    /// against it.
    public var dailyLimit = 500

    public init(baseURL: URL = URL(string: "https://my-api.plantnet.org")!, apiKey: String?) {
        self.baseURL = baseURL
        self.apiKey = apiKey
    }
}

/// Why a Pl@ntNet request failed.
public struct PlantNetError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        case notConfigured, invalidRequest, unauthorized, quotaExceeded, unavailable, timedOut, badResponse
    }

    public var code: Code
    public var message: String
    /// For `.quotaExceeded`: when the daily quota comes back (00:00 UTC).
    public var resetsAt: Date?

    public init(_ code: Code, _ message: String, resetsAt: Date? = nil) {
        self.code = code
        self.message = message
        self.resetsAt = resetsAt
    }

    public var description: String { "Pl@ntNet: \(message)" }
}

/// One photo to identify and the organ it shows.
public struct PlantNetImage: Sendable {
    public enum Organ: String, Sendable, CaseIterable { case leaf, flower, fruit, bark, auto }

    public var data: Data
    public var organ: Organ
    /// "image/jpeg" or "image/png", the types Pl@ntNet takes (``PlantNetUpload`` converts the others).
    public var mediaType: String

    public init(data: Data, organ: Organ = .auto, mediaType: String = "image/jpeg") {
        self.data = data
        self.organ = organ
        self.mediaType = mediaType
    }
}

/// What Pl@ntNet answered.
public struct PlantNetIdentification: Sendable {
    public struct Candidate: Sendable, Equatable {
        public var scientificName: String
        public var genus: String
        public var family: String
        public var commonNames: [String]
        public var score: Double
        public var gbifID: String?
        public var powoID: String?
    }

    /// Best first; empty when no plant was recognised.
    public var candidates: [Candidate]
    /// Pl@ntNet's 404 "Species not found": the photos show no plant it knows. An answer, not an error.
    public var noPlantRecognized: Bool
    public var bestMatch: String?
    /// Identifications left today, as Pl@ntNet reported.
    public var remainingRequests: Int?
    public var version: String?
}
