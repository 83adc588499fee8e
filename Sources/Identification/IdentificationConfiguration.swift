import Foundation
import PlantGuideRPC

/// Configuration of plantguide-identification.
public struct IdentificationConfiguration: Sendable {
    public var dataDirectory: URL
    public var plantnet: PlantNetConfiguration
    /// Never call Pl@ntNet (an offline installation): every method is on-device.
    public var offline = false
    /// Identical photos with identical settings are answered from memory. Default 1,000 answers.
    public var cacheCapacity = 1_000

    public init(dataDirectory: URL, plantnet: PlantNetConfiguration) {
        self.dataDirectory = dataDirectory
        self.plantnet = plantnet
    }
}

extension PlantNetError: RPCStatusConvertible {
    public var rpcError: RPCError {
        switch code {
        case .notConfigured, .unauthorized: RPCError(.failedPrecondition, description)
        case .invalidRequest: RPCError(.invalidArgument, description)
        case .quotaExceeded:
            RPCError(.resourceExhausted, description + (resetsAt.map { "; it resets at \($0.formatted(.iso8601))" } ?? ""))
        case .timedOut: RPCError(.deadlineExceeded, description)
        case .unavailable, .badResponse: RPCError(.unavailable, description)
        }
    }
}
