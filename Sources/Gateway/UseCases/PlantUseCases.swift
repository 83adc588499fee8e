import Foundation
import PlantGuideProtos
import PlantGuideRPCCore

/// The plant screens: save, detail, list, delete, each across the services.
struct PlantUseCases: Sendable {
    typealias Collection = Plantguide_Collection_V1_CollectionService
    typealias Scheduling = Plantguide_Scheduling_V1_SchedulingService
    typealias CareData = Plantguide_Caredata_V1_CareDataService

    let services: Downstream
    let pending: PendingWork
    let timeZones: ReminderTimeZones

    /// Care info (generic when nobody knows the species) → plant, photo, identification → schedule. The plant is
    /// stored whatever happens after; care info or a schedule that cannot be had now (or a crash before it) is left
    /// as pending work, recorded before the plant is added.
    func save(_ request: Plantguide_Gateway_V1_SavePlantRequest, as caller: Caller) async throws -> Plantguide_Gateway_V1_SavePlantResponse {
        guard request.hasPlant, !request.plant.id.isEmpty else { throw RPCError.invalidArgument("plant.id", .required, "plant.id is required") }
        guard !request.plant.scientificName.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw RPCError.invalidArgument("plant.scientific_name", .required, "plant.scientific_name is required")
        }
        if request.hasIdentification, request.identification.id.isEmpty {
            throw RPCError.invalidArgument("identification.id", .required, "an identification needs the client's id")
        }
        var care: Plantguide_Caredata_V1_CareInfo?
        do {
            care = try await services.call(services.caredata, CareData.getCareInfo, .with {
                $0.scientificName = request.plant.scientificName
                $0.allowGeneric = true
            }, as: caller).careInfo
        } catch let error as RPCError where error.code == .invalidArgument {
            throw RPCError.invalidArgument("plant.scientific_name", .invalidFormat, error.message)
        } catch let error as RPCError where error.code == .unavailable || error.code == .deadlineExceeded {
            care = nil
        }

        // A deletion of the same plant and this save run one after the other, on any replica: interleaved, the
        // deletion could remove the schedule before this save plans it and the plant after, leaving tasks of no plant.
        try await pending.claims.waitForDeletion(userID: caller.id, plantID: request.plant.id, until: caller.deadline)
        defer { pending.claims.releaseDeletion(userID: caller.id, plantID: request.plant.id) }

        // Recorded before the plant is added: a crash (or an outage) anywhere from here on leaves this entry, and
        // the sweeper gives the plant its schedule, so no plant stays without one. While this save runs, the
        // sweeper leaves the entry alone (unless it was already working on this plant's earlier one).
        let claimed = await pending.claims.claim(userID: caller.id, plantID: request.plant.id)
        defer { if claimed { pending.claims.release(userID: caller.id, plantID: request.plant.id) } }
        var lookup = PendingWork.CareLookup(
            userID: caller.id, plantID: request.plant.id, scientificName: request.plant.scientificName,
            plantName: Self.displayName(request.plant), includeRepotting: request.includeRepotting, includePruning: request.includePruning)
        try await pending.addCareLookup(lookup)
        let added: Plantguide_Collection_V1_AddPlantResponse
        do {
            added = try await services.call(services.collection, Collection.addPlant, .with { $0.plant = request.plant }, as: caller)
        } catch let error as RPCError where !Self.isTransient(error) {
            _ = try? await pending.finishCareLookup(userID: caller.id, plantID: request.plant.id)
            throw error
        }
        var response = Plantguide_Gateway_V1_SavePlantResponse()
        response.created = added.created
        if !request.photo.isEmpty {
            _ = try await services.call(services.collection, Collection.putPhoto, .with {
                $0.plantID = request.plant.id
                $0.kind = .captured
                $0.data = request.photo
            }, as: caller)
        }
        if request.hasIdentification {
            var record = request.identification
            record.plantID = request.plant.id
            _ = try await services.call(services.collection, Collection.addIdentification, .with { $0.identification = record }, as: caller)
        }
        response.plant = try await services.call(services.collection, Collection.getPlant, .with { $0.id = request.plant.id }, as: caller).plant
        lookup.plantName = Self.displayName(response.plant)
        guard let care else {
            try await pending.addCareLookup(lookup)
            response.carePending = true
            return response
        }
        response.careInfo = care
        do {
            response.tasks = try await Self.schedule(lookup, care: care, services: services, as: caller)
            _ = try await pending.finishCareLookup(userID: caller.id, plantID: request.plant.id)
        } catch let error as RPCError where error.code == .unavailable || error.code == .deadlineExceeded {
            try await pending.addCareLookup(lookup)
            response.carePending = true
        }
        return response
    }

    /// Puts the plant's schedule and returns its planned tasks.
    static func schedule(_ lookup: PendingWork.CareLookup, care: Plantguide_Caredata_V1_CareInfo, services: Downstream,
                         as caller: Caller) async throws -> [Plantguide_Scheduling_V1_CareTask] {
        try await services.call(services.scheduling, Scheduling.putSchedule, .with {
            $0.schedule = .with {
                $0.plantID = lookup.plantID
                $0.plantName = lookup.plantName
                $0.careInfo = care
                $0.includeRepotting = lookup.includeRepotting
                $0.includePruning = lookup.includePruning
            }
        }, as: caller).tasks
    }

    /// The plant, and its schedule's care info with its open tasks, asked of the two services at once. Only the
    /// collection is needed: the other parts are left out, and named, when their service does not answer.
    func details(_ plantID: String, as caller: Caller) async throws -> Plantguide_Gateway_V1_GetPlantDetailsResponse {
        guard !plantID.isEmpty else { throw RPCError.invalidArgument("plant_id", .required, "plant_id is required") }
        async let plant = services.call(services.collection, Collection.getPlant, .with { $0.id = plantID }, as: caller)
        async let schedule = partial {
            try await services.call(services.scheduling, Scheduling.getSchedule, .with {
                $0.plantID = plantID
                $0.includeOpenTasks = true
            }, as: caller)
        }
        async let history = partial {
            try await services.call(services.collection, Collection.listIdentifications, .with {
                $0.plantID = plantID
                $0.pageSize = 20
            }, as: caller)
        }
        var response = Plantguide_Gateway_V1_GetPlantDetailsResponse()
        response.plant = try await plant.plant
        if case .answered(let found) = await history { response.identifications = found.identifications }
        switch await schedule {
        case .answered(let found):
            response.careInfo = found.schedule.careInfo
            response.upcomingTasks = found.openTasks
        case .absent:
            // No schedule yet (care pending): one-off tasks may still exist.
            if case .answered(let found) = await partial({
                try await services.call(services.scheduling, Scheduling.listTasks, .with {
                    $0.plantID = plantID
                    $0.view = .open
                }, as: caller)
            }) { response.upcomingTasks = found.tasks }
        case .unavailable: response.unavailable.append("scheduling")
        }
        if !response.hasCareInfo && !response.unavailable.contains("scheduling") {
            // No schedule yet (care pending): ask care data directly.
            let name = response.plant.scientificName
            switch await partial({ try await services.call(services.caredata, CareData.getCareInfo, .with {
                $0.scientificName = name
                $0.allowGeneric = true
            }, as: caller) }) {
            case .answered(let found): response.careInfo = found.careInfo
            case .absent: break
            case .unavailable: response.unavailable.append("caredata")
            }
        }
        return response
    }

    /// The collection's update; when the name a reminder shows changes, the schedule is renamed too (a plant
    /// without a schedule yet gets the name when its schedule is made).
    func update(_ request: Plantguide_Gateway_V1_UpdatePlantRequest, as caller: Caller) async throws -> Plantguide_Gateway_V1_UpdatePlantResponse {
        let updated = try await services.call(services.collection, Collection.updatePlant, .with {
            $0.plant = request.plant
            $0.updateMask = request.updateMask
        }, as: caller).plant
        let naming: Set<String> = ["custom_name", "customName", "common_names", "commonNames", "scientific_name", "scientificName"]
        if request.updateMask.paths.contains(where: naming.contains) {
            do {
                _ = try await services.call(services.scheduling, Scheduling.renamePlant, .with {
                    $0.plantID = updated.id
                    $0.plantName = Self.displayName(updated)
                }, as: caller)
            } catch let error as RPCError where error.code == .notFound {
                // No schedule yet: it will be made with the new name.
            }
        }
        return .with { $0.plant = updated }
    }

    func setFavorite(_ request: Plantguide_Gateway_V1_SetFavoriteRequest, as caller: Caller) async throws -> Plantguide_Gateway_V1_SetFavoriteResponse {
        let plant = try await services.call(services.collection, Collection.setFavorite, .with {
            $0.id = request.plantID
            $0.favorite = request.favorite
        }, as: caller).plant
        return .with { $0.plant = plant }
    }

    func care(_ request: Plantguide_Gateway_V1_GetCareInfoRequest, as caller: Caller) async throws -> Plantguide_Gateway_V1_GetCareInfoResponse {
        let care = try await services.call(services.caredata, CareData.getCareInfo, .with {
            $0.scientificName = request.scientificName
            $0.allowGeneric = true
        }, as: caller).careInfo
        return .with { $0.careInfo = care }
    }

    func list(_ request: Plantguide_Gateway_V1_ListPlantsRequest, as caller: Caller) async throws -> Plantguide_Gateway_V1_ListPlantsResponse {
        let page = try await services.call(services.collection, Collection.listPlants, request.filter, as: caller)
        return .with { $0.page = page }
    }

    /// The collection's statistics, "this month" in the time zone of the person's reminders (UTC when scheduling
    /// does not answer: the numbers are still right, the month's edge may be a few hours off).
    func statistics(as caller: Caller) async throws -> Plantguide_Gateway_V1_GetCollectionStatisticsResponse {
        var timeZone = timeZones.zone(of: caller.id)
        if timeZone == nil,
           case .answered(let found) = await partial({ try await services.call(services.scheduling, Scheduling.getPreferences, .init(), as: caller) })
        {
            timeZone = found.preferences.timeZone
            timeZones.remember(found.preferences.timeZone, of: caller.id)
        }
        let statistics = try await services.call(services.collection, Collection.getStatistics, .with { $0.timeZone = timeZone ?? "" }, as: caller)
        return .with { $0.statistics = statistics }
    }

    /// Schedules first, then the plant; recorded as pending before either, so that an interruption anywhere is
    /// finished by the sweeper and never leaves tasks of a deleted plant.
    func delete(_ plantID: String, as caller: Caller) async throws -> Plantguide_Gateway_V1_DeletePlantResponse {
        guard !plantID.isEmpty else { throw RPCError.invalidArgument("plant_id", .required, "plant_id is required") }
        let deletion = PendingWork.Deletion(userID: caller.id, plantID: plantID)
        // Held while it runs, so that the sweeper does not finish the same deletion at the same time.
        try await pending.claims.waitForDeletion(userID: caller.id, plantID: plantID, until: caller.deadline)
        defer { pending.claims.releaseDeletion(userID: caller.id, plantID: plantID) }
        try await pending.beginDeletion(deletion)
        do {
            let response = try await Self.finish(deletion, services: services, as: caller)
            try await pending.finishDeletion(deletion)
            return response
        } catch let error as RPCError where !Self.isTransient(error) {
            // Refused for good (a malformed id, say): nothing to retry later.
            try await pending.finishDeletion(deletion)
            throw error
        }
    }

    static func finish(_ deletion: PendingWork.Deletion, services: Downstream, as caller: Caller) async throws
        -> Plantguide_Gateway_V1_DeletePlantResponse
    {
        let unscheduled = try await services.call(services.scheduling, Scheduling.deletePlantSchedules, .with { $0.plantID = deletion.plantID },
                                                  as: caller)
        let removed = try await services.call(services.collection, Collection.deletePlant, .with { $0.id = deletion.plantID }, as: caller)
        return .with {
            $0.deleted = removed.deleted
            $0.tasksDeleted = unscheduled.tasksDeleted
            $0.photosRemoved = removed.photosRemoved
        }
    }

    /// Whether waiting can help: the service was down or too slow.
    static func isTransient(_ error: RPCError) -> Bool {
        [.unavailable, .deadlineExceeded, .resourceExhausted, .aborted].contains(error.code)
    }

    /// What reminders and task lists call the plant: its custom name, else its first common name, else its
    /// scientific name.
    static func displayName(_ plant: Plantguide_Collection_V1_Plant) -> String {
        if !plant.customName.isEmpty { return plant.customName }
        return plant.commonNames.first ?? plant.scientificName
    }
}

/// A part of a composed answer: there, not there (NOT_FOUND), or its service did not answer.
enum OptionalPart<Value: Sendable>: Sendable {
    case answered(Value)
    case absent
    case unavailable
}

/// Runs a call whose failure leaves out a part of the answer instead of failing it.
func partial<Value: Sendable>(_ call: @Sendable () async throws -> Value) async -> OptionalPart<Value> {
    do {
        return .answered(try await call())
    } catch let error as RPCError where error.code == .notFound {
        return .absent
    } catch {
        return .unavailable
    }
}
