import Foundation
import PlantGuideProtos
import PlantGuideRPCCore

/// The settings screen and the person's data as a whole: settings, export, import, delete everything.
struct AccountDataUseCases: Sendable {
    typealias Collection = Plantguide_Collection_V1_CollectionService
    typealias Scheduling = Plantguide_Scheduling_V1_SchedulingService

    let services: Downstream
    let pending: PendingWork
    let identificationSettings: IdentificationSettingsStore
    let timeZones: ReminderTimeZones

    func settings(as caller: Caller) async throws -> Plantguide_Gateway_V1_GetSettingsResponse {
        let stored = try await services.call(services.scheduling, Scheduling.getPreferences, .init(), as: caller)
        timeZones.remember(stored.preferences.timeZone, of: caller.id)
        let identification = try await identificationSettings.settings(userID: caller.id)
        return .with {
            $0.settings = stored.preferences
            $0.identification = identification
        }
    }

    /// The identification settings first (checked, then kept by the gateway), then the reminder settings.
    func putSettings(_ request: Plantguide_Gateway_V1_PutSettingsRequest, as caller: Caller) async throws
        -> Plantguide_Gateway_V1_PutSettingsResponse
    {
        if request.hasIdentification { try await identificationSettings.replace(request.identification, userID: caller.id) }
        var response = Plantguide_Gateway_V1_PutSettingsResponse()
        if request.hasSettings {
            let stored = try await services.call(services.scheduling, Scheduling.putPreferences, .with {
                $0.preferences = request.settings
                if request.hasUpdateMask { $0.updateMask = request.updateMask }
            }, as: caller)
            response.settings = stored.preferences
            response.remindersReplanned = stored.remindersReplanned
        } else {
            response.settings = try await services.call(services.scheduling, Scheduling.getPreferences, .init(), as: caller).preferences
        }
        timeZones.remember(response.settings.timeZone, of: caller.id)
        response.identification = try await identificationSettings.settings(userID: caller.id)
        return response
    }

    func export(as caller: Caller) async throws -> Plantguide_Gateway_V1_ExportCollectionResponse {
        let archive = try await services.call(services.collection, Collection.exportCollection, .init(), as: caller)
        return .with { $0.export = archive }
    }

    /// Imports, then gives every plant without a schedule one (through the pending work, which plans it now or
    /// when care data and scheduling answer).
    func importArchive(_ request: Plantguide_Gateway_V1_ImportCollectionRequest, as caller: Caller) async throws
        -> Plantguide_Gateway_V1_ImportCollectionResponse
    {
        guard !request.archive.isEmpty else { throw RPCError.invalidArgument("archive", .required, "archive is empty") }
        var response = Plantguide_Gateway_V1_ImportCollectionResponse()
        response.imported = try await services.call(services.collection, Collection.importCollection, .with { $0.archive = request.archive },
                                                    as: caller)
        var scheduled = Set<String>()
        var token = ""
        repeat {
            let page = try await services.call(services.scheduling, Scheduling.listSchedules, .with {
                $0.pageSize = 500
                $0.pageToken = token
            }, as: caller)
            scheduled.formUnion(page.schedules.map(\.plantID))
            token = page.nextPageToken
        } while !token.isEmpty
        let sweeper = PendingWorkSweeper(services: services, pending: pending, logger: .init(label: "plantguide.gateway.import"))
        var recorded: [String] = []
        repeat {
            let page = try await services.call(services.collection, Collection.listPlants, .with {
                $0.pageSize = 500
                $0.pageToken = token
            }, as: caller)
            for plant in page.plants where !scheduled.contains(plant.id) {
                try await pending.addCareLookup(.init(
                    userID: caller.id, plantID: plant.id, scientificName: plant.scientificName,
                    plantName: PlantUseCases.displayName(plant), includeRepotting: false, includePruning: false))
                recorded.append(plant.id)
            }
            token = page.nextPageToken
        } while !token.isEmpty
        guard !recorded.isEmpty else { return response }
        await sweeper.sweepCareLookups(of: caller.id)
        // Counted from what is still pending, not from what this sweep finished: the background sweep may have
        // planned some of these plants first.
        let waiting = Set(try await pending.careLookups(of: caller.id, limit: 10_000).map(\.plantID))
        let stillPending = recorded.filter(waiting.contains).count
        response.schedulesPending = UInt32(stillPending)
        response.schedulesPlanned = UInt32(recorded.count - stillPending)
        return response
    }

    /// Scheduling first (no reminder may go out for a plant about to vanish), then the collection, then what the
    /// gateway keeps of the person (pending work, identification settings; the account stays).
    func deleteAll(as caller: Caller) async throws -> Plantguide_Gateway_V1_DeleteAllDataResponse {
        // The sweeper must not plan a schedule for one of the plants after the schedules are gone.
        await pending.claims.beginErasing(userID: caller.id)
        defer { pending.claims.endErasing(userID: caller.id) }
        let schedules = try await services.call(services.scheduling, Scheduling.deleteUserData, .init(), as: caller)
        timeZones.forget(caller.id)
        let plants = try await services.call(services.collection, Collection.deleteUserData, .init(), as: caller)
        try await pending.forget(userID: caller.id)
        try await identificationSettings.forget(userID: caller.id)
        return .with {
            $0.plantsDeleted = plants.plantsDeleted
            $0.photosRemoved = plants.photosRemoved
            $0.tasksDeleted = schedules.tasksDeleted
        }
    }
}
