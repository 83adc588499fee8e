import Foundation
@testable import Gateway
import PlantGuideTestSupport

/// The gateway's records for a test on either backend.
enum GatewayTestRecords {
    /// Records on `backend`: a new SQLite file, or a schema of its own in the tests' PostgreSQL.
    static func open(_ backend: TestBackend) async throws -> any GatewayRecords {
        switch backend {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-records-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return try SQLiteGateway.open(folder: folder)
        case .postgres:
            return PostgresGateway(try await TestPostgres.open(try await TestPostgres.settings(), migrations: PostgresGateway.migrations))
        }
    }
}
