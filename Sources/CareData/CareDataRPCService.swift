import Foundation
import Logging
import PlantGuideRPC

/// Configuration of plantguide-caredata.
public struct CareDataConfiguration: Sendable {
    /// Folder holding the service's own files (its SQLite database among them).
    public var dataDirectory: URL

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }
}

/// The RPC methods of plantguide-caredata: care data (Trefle, cache, offline catalog).
///
/// Not implemented yet (issue 3): the service runs, answers health and metrics, and its own methods
/// answer UNIMPLEMENTED.
public struct CareDataRPCService: RPCService {
    public let configuration: CareDataConfiguration
    private let logger: Logger

    public init(configuration: CareDataConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func registerMethods(with router: inout RPCRouter) {}
}
