import Foundation
import Logging
import PlantGuideRPC

/// Configuration of plantguide-collection.
public struct CollectionConfiguration: Sendable {
    /// Folder holding the service's own files (its SQLite database among them).
    public var dataDirectory: URL

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }
}

/// The RPC methods of plantguide-collection: collection storage (plants, photos, identification history).
///
/// Not implemented yet (issue 4): the service runs, answers health and metrics, and its own methods
/// answer UNIMPLEMENTED.
public struct CollectionRPCService: RPCService {
    public let configuration: CollectionConfiguration
    private let logger: Logger

    public init(configuration: CollectionConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func registerMethods(with router: inout RPCRouter) {}
}
