import Foundation
import PlantGuideProtos
import PlantGuideRPCCore

/// Identification with the best candidate's care, and the status screen.
struct IdentifyAndStatus: Sendable {
    typealias Identification = Plantguide_Identification_V1_IdentificationService
    typealias CareData = Plantguide_Caredata_V1_CareDataService

    let services: Downstream
    let identificationSettings: IdentificationSettingsStore

    /// What the request leaves open comes from the person's settings; offline forces on-device.
    func identify(_ request: Plantguide_Gateway_V1_IdentifyPlantRequest, as caller: Caller) async throws
        -> Plantguide_Gateway_V1_IdentifyPlantResponse
    {
        let settings = try await identificationSettings.settings(userID: caller.id)
        var method = request.method == .unspecified ? settings.method : request.method
        if settings.offline { method = .onDevice }
        let answer = try await services.call(services.identification, Identification.identify, .with {
            $0.images = request.images
            $0.method = method
            $0.minConfidence = request.minConfidence == 0 ? settings.minConfidence : request.minConfidence
            $0.maxResults = request.maxResults
            $0.language = request.language
            if request.hasTakenAt { $0.location = request.takenAt }
        }, as: caller)
        var response = Plantguide_Gateway_V1_IdentifyPlantResponse()
        response.identification = answer
        if let best = answer.candidates.first, !answer.noPlantRecognized,
           case .answered(let care) = await partial({
               try await services.call(services.caredata, CareData.getCareInfo, .with {
                   $0.scientificName = best.scientificName
                   $0.allowGeneric = true
               }, as: caller)
           }) {
            response.careInfo = care.careInfo
        }
        return response
    }

    /// Every service's health, asked at once with at most a second each, and the identification and care-data
    /// status where those answer.
    func status(as caller: Caller) async -> Plantguide_Gateway_V1_GetStatusResponse {
        var brief = caller
        brief.deadline = min(caller.deadline, .now + .seconds(1))
        let probe = brief
        var response = Plantguide_Gateway_V1_GetStatusResponse()
        await withTaskGroup(of: Plantguide_Gateway_V1_ServiceStatus.self) { group in
            for (name, client) in services.named {
                group.addTask {
                    var status = Plantguide_Gateway_V1_ServiceStatus()
                    status.name = name
                    status.target = client.target.description
                    do {
                        let health = try await services.call(client, Plantguide_Health_V1_Health.check, .init(), as: probe)
                        status.serving = health.status == .serving
                        if !status.serving { status.error = "health: \(health.status)" }
                    } catch {
                        status.error = (error as? RPCError)?.message ?? "no answer"
                    }
                    return status
                }
            }
            for await status in group { response.services.append(status) }
        }
        response.services.sort { $0.name < $1.name }
        async let identification = partial { try await services.call(services.identification, Identification.getStatus, .init(), as: probe) }
        async let careData = partial { try await services.call(services.caredata, CareData.getStatus, .init(), as: probe) }
        if case .answered(let value) = await identification { response.identification = value }
        if case .answered(let value) = await careData { response.careData = value }
        return response
    }
}
