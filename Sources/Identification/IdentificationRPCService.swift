import Foundation
import Logging
import PlantGuideRPC

/// Configuration of plantguide-identification.
public struct IdentificationConfiguration: Sendable {
    /// Folder holding the service's own files (its SQLite database among them).
    public var dataDirectory: URL

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }
}

/// The RPC methods of plantguide-identification: plant identification (on-device model, Pl@ntNet, hybrid policy).
///
/// Not implemented yet (issue 6): the service runs, answers health and metrics, and its own methods
/// answer UNIMPLEMENTED.
public struct IdentificationRPCService: RPCService {
    public let configuration: IdentificationConfiguration
    private let logger: Logger

    public init(configuration: IdentificationConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func registerMethods(with router: inout RPCRouter) {}
}
