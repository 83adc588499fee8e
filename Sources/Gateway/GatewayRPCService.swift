import Foundation
import Logging
import PlantGuideRPC

/// Configuration of plantguide-gateway.
public struct GatewayConfiguration: Sendable {
    /// Folder holding the service's own files (its SQLite database among them).
    public var dataDirectory: URL

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }
}

/// The RPC methods of plantguide-gateway: gateway (authentication, use cases across services).
///
/// Not implemented yet (a later issue): the service runs, answers health and metrics, and its own methods
/// answer UNIMPLEMENTED.
public struct GatewayRPCService: RPCService {
    public let configuration: GatewayConfiguration
    private let logger: Logger

    public init(configuration: GatewayConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func registerMethods(with router: inout RPCRouter) {}
}
