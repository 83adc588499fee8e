import Foundation
import PlantGuideRPCCore

/// Configuration of plantguide-identification.
public struct IdentificationConfiguration: Sendable {
    public var dataDirectory: URL
    public var plantnet: PlantNetConfiguration
    /// Never call Pl@ntNet (an offline installation): every method is on-device.
    public var offline = false
    /// Identical photos with identical settings are answered from memory. Default 1,000 answers.
    public var cacheCapacity = 1_000
    /// An answer of the on-device model alone whose best score is under this is "no plant recognised" (no
    /// candidates), as Pl@ntNet's "Species not found" is. Default 0.05: about twice what a model of 38 classes
    /// gives each class when it has no idea. 0 turns it off.
    public var noPlantThreshold = 0.05

    public init(dataDirectory: URL, plantnet: PlantNetConfiguration) {
        self.dataDirectory = dataDirectory
        self.plantnet = plantnet
    }
}

/// The reason codes (`ErrorInfo.reason`) plantguide-identification adds to the transport's.
public enum IdentificationErrorReason {
    public static let domain = "plantguide-identification"
    /// Too many images wait for the on-device model.
    public static let modelQueueFull = "MODEL_QUEUE_FULL"
    /// Pl@ntNet's daily identifications are used up until the reset in `metadata["resets_at"]`.
    public static let plantnetDailyQuota = "PLANTNET_DAILY_QUOTA"
}

extension PlantNetError: RPCStatusConvertible {
    public var rpcError: RPCError {
        let domain = IdentificationErrorReason.domain
        switch code {
        case .notConfigured, .unauthorized: return RPCError(.failedPrecondition, description)
        case .invalidRequest: return RPCError.invalidArgument("images", .invalidFormat, description)
        case .quotaExceeded:
            let reset = resetsAt ?? PlantNetClient.nextMidnightUTC(after: Date())
            let resetText = reset.formatted(.iso8601)
            return RPCError(.resourceExhausted, description + "; it resets at \(resetText)")
                .reason(IdentificationErrorReason.plantnetDailyQuota, domain: domain, metadata: ["resets_at": resetText])
                .retry(after: .seconds(max(0, reset.timeIntervalSinceNow.rounded(.up))))
        case .timedOut: return RPCError(.deadlineExceeded, description)
        case .unavailable, .badResponse:
            return RPCError(.unavailable, description)
                .reason(RPCErrorReason.upstreamUnavailable, domain: domain, metadata: ["upstream": "plantnet"])
                .retry(after: .seconds(5))
        }
    }
}
