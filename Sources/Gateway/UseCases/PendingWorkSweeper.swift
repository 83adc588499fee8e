import Foundation
import Logging
import PlantGuideProtos
import PlantGuideRPCCore

/// Finishes the work services being down interrupted: deletions whose halves are not both done, and saved plants
/// still waiting for care info and a schedule. Runs at start (so a crash of the gateway between the halves of a
/// delete leaves no orphan once it runs again) and then every interval.
public struct PendingWorkSweeper: Sendable {
    typealias Collection = Plantguide_Collection_V1_CollectionService
    typealias CareData = Plantguide_Caredata_V1_CareDataService

    let services: Downstream
    let pending: PendingWork
    let logger: Logger

    /// One pass over everything pending. Returns how many entries were finished.
    @discardableResult
    public func sweepOnce() async -> Int {
        var finished = 0
        for deletion in (try? await pending.deletions()) ?? [] {
            // One a DeletePlant under way holds is that call's to finish.
            guard await pending.claims.claimDeletion(userID: deletion.userID, plantID: deletion.plantID) else { continue }
            defer { pending.claims.releaseDeletion(userID: deletion.userID, plantID: deletion.plantID) }
            let caller = Caller(id: deletion.userID, deadline: .now + .seconds(10), traceID: nil)
            do {
                _ = try await PlantUseCases.finish(deletion, services: services, as: caller)
                try await pending.finishDeletion(deletion)
                finished += 1
            } catch let error as RPCError where !PlantUseCases.isTransient(error) {
                logger.warning("a pending deletion was refused for good", metadata: ["plant": "\(deletion.plantID)", "error": "\(error)"])
                try? await pending.finishDeletion(deletion)
            } catch {
                logger.debug("a pending deletion waits", metadata: ["plant": "\(deletion.plantID)", "error": "\(error)"])
            }
        }
        return finished + (await sweepCareLookups(of: nil))
    }

    /// Plans the schedules of pending care lookups (only `userID`'s when given), every one of them a page at a
    /// time: lookups that must wait (a save under way, a collection that does not answer) never hold up the
    /// ones behind them. Returns how many were planned.
    @discardableResult
    func sweepCareLookups(of userID: String?) async -> Int {
        var finished = 0
        var cursor: PendingWork.CareLookup?
        while true {
            let page = if let userID { try? await pending.careLookups(of: userID) } else { try? await pending.careLookups(after: cursor) }
            guard let page, !page.isEmpty else { break }
            finished += await sweep(page, waiting: userID != nil)
            guard userID == nil, page.count == PendingWork.pageSize, let last = page.last else { break }
            cursor = last
        }
        return finished
    }

    /// Plans the schedules of `lookups`; returns how many were planned.
    private func sweep(_ lookups: [PendingWork.CareLookup], waiting: Bool) async -> Int {
        var finished = 0
        for lookup in lookups {
            // A save under way, or an erase of the person's data, has it: the background sweep leaves it to them; an
            // import's own sweep, which must plan every plant before it answers, waits its turn.
            guard await claim(lookup, waiting: waiting) else { continue }
            defer { pending.claims.release(userID: lookup.userID, plantID: lookup.plantID) }
            let caller = Caller(id: lookup.userID, deadline: .now + .seconds(10), traceID: nil)
            guard await plantExists(lookup, as: caller) else { continue }
            do {
                let care = try await services.call(services.caredata, CareData.getCareInfo, .with {
                    $0.scientificName = lookup.scientificName
                    $0.allowGeneric = true
                }, as: caller).careInfo
                _ = try await PlantUseCases.schedule(lookup, care: care, services: services, as: caller)
                if try await pending.finishCareLookup(userID: lookup.userID, plantID: lookup.plantID) {
                    finished += 1
                } else {
                    // Gone already: another sweep finished it (an import's, beside the background one), or the plant
                    // was deleted meanwhile, and then the schedule just made must go. Only the plant's absence tells.
                    try await takeBackScheduleIfPlantIsGone(lookup, as: caller)
                }
            } catch let error as RPCError where error.code == .notFound || error.code == .invalidArgument {
                // The species cannot be looked up as it is: nothing will change by waiting.
                logger.warning("a pending care lookup cannot finish", metadata: ["plant": "\(lookup.plantID)", "error": "\(error)"])
                _ = try? await pending.finishCareLookup(userID: lookup.userID, plantID: lookup.plantID)
            } catch {
                logger.debug("a pending care lookup waits", metadata: ["plant": "\(lookup.plantID)", "error": "\(error)"])
            }
        }
        return finished
    }

    private func claim(_ lookup: PendingWork.CareLookup, waiting: Bool) async -> Bool {
        while !(await pending.claims.claim(userID: lookup.userID, plantID: lookup.plantID)) {
            guard waiting else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// A save records its lookup before adding the plant. Without the plant, a young lookup is a save under way
    /// (left alone) and an old one a save that never got that far (dropped, with any schedule made for it).
    /// False also while the collection does not answer.
    private func plantExists(_ lookup: PendingWork.CareLookup, as caller: Caller) async -> Bool {
        do {
            _ = try await services.call(services.collection, Collection.getPlant, .with { $0.id = lookup.plantID }, as: caller)
            return true
        } catch let error as RPCError where error.code == .notFound {
            guard Date().timeIntervalSince(lookup.since) > Self.saveGrace else { return false }
            do {
                _ = try await services.call(services.scheduling, Plantguide_Scheduling_V1_SchedulingService.deletePlantSchedules,
                                            .with { $0.plantID = lookup.plantID }, as: caller)
                _ = try await pending.finishCareLookup(userID: lookup.userID, plantID: lookup.plantID)
            } catch {
                logger.debug("a stale care lookup waits", metadata: ["plant": "\(lookup.plantID)", "error": "\(error)"])
            }
            return false
        } catch {
            return false
        }
    }

    /// How long a save may take before its lookup without a plant counts as abandoned.
    static let saveGrace: TimeInterval = 60

    private func takeBackScheduleIfPlantIsGone(_ lookup: PendingWork.CareLookup, as caller: Caller) async throws {
        do {
            _ = try await services.call(services.collection, Collection.getPlant, .with { $0.id = lookup.plantID }, as: caller)
        } catch let error as RPCError where error.code == .notFound {
            _ = try await services.call(services.scheduling, Plantguide_Scheduling_V1_SchedulingService.deletePlantSchedules,
                                        .with { $0.plantID = lookup.plantID }, as: caller)
        }
    }

    /// Sweeps every `interval` until the task is cancelled.
    public func run(every interval: Duration) async {
        while !Task.isCancelled {
            await sweepOnce()
            try? await Task.sleep(for: interval)
        }
    }
}
