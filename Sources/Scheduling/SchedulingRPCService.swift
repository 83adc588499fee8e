import Foundation
import Logging
import PlantGuideRPC

/// Configuration of plantguide-scheduling.
public struct SchedulingConfiguration: Sendable {
    /// Folder holding the service's own files (its SQLite database among them).
    public var dataDirectory: URL

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }
}

/// The RPC methods of plantguide-scheduling: care scheduling (tasks, reminders, calendar).
///
/// Not implemented yet (issue 5): the service runs, answers health and metrics, and its own methods
/// answer UNIMPLEMENTED.
public struct SchedulingRPCService: RPCService {
    public let configuration: SchedulingConfiguration
    private let logger: Logger

    public init(configuration: SchedulingConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func registerMethods(with router: inout RPCRouter) {}
}
