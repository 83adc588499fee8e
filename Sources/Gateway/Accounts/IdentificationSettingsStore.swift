import Foundation
import PlantGuideProtos
import PlantGuideRPCCore

/// Each person's identification settings, kept by the gateway (the services have no notion of them).
struct IdentificationSettingsStore: Sendable {
    typealias Settings = Plantguide_Gateway_V1_IdentificationSettings

    let records: any GatewayRecords

    /// The person's settings; all unset for a new person.
    func settings(userID: String) async throws -> Settings {
        guard let blob = try await records.identificationSettings(userID: userID) else { return Settings() }
        return (try? Settings(serializedBytes: blob)) ?? Settings()
    }

    /// - Throws: INVALID_ARGUMENT for a minimum confidence outside 0–1 or an unknown method.
    func replace(_ settings: Settings, userID: String) async throws {
        guard settings.minConfidence.isFinite, (0...1).contains(settings.minConfidence) else {
            throw RPCError.invalidArgument("identification.min_confidence", .outOfRange, "identification.min_confidence must be from 0 to 1")
        }
        if case .UNRECOGNIZED = settings.method {
            throw RPCError.invalidArgument("identification.method", .unknownValue, "identification.method is not a known method")
        }
        try await records.replaceIdentificationSettings(try settings.serializedData(), userID: userID)
    }

    /// Forgets the person's settings (all their data is being deleted).
    func forget(userID: String) async throws {
        try await records.forgetIdentificationSettings(userID: userID)
    }
}
