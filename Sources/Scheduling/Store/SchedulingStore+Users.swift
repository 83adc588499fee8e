import Foundation
import PlantGuideCore
import PlantGuideProtos

/// What the app's screens ask of a user's whole set of schedules: listing them, renaming a plant, counting open
/// tasks per plant, and deleting everything.
extension SchedulingStore {
    /// The longest plant name a schedule takes.
    public static let maxPlantNameLength = 200

    /// The owner's schedules by plant id, `pageSize` (1–500, 100 when 0) at a time.
    /// - Returns: the page and the token of the next one (empty on the last page).
    public func schedules(pageSize: Int, pageToken: String, owner: String) async throws -> ([Schedule], String) {
        guard (0...500).contains(pageSize) else { throw SchedulingError.invalidArgument("page_size", .outOfRange, "page_size must be at most 500") }
        let size = pageSize == 0 ? 100 : pageSize
        let after: String
        if pageToken.isEmpty {
            after = ""
        } else {
            guard pageToken.hasPrefix("s:") else { throw SchedulingError.invalidArgument("page_token", .invalidToken, "page_token is not from ListSchedules") }
            after = String(pageToken.dropFirst(2))
        }
        // A stored message that does not parse is skipped, never fatal (written by a version that is gone).
        let rows = try await records.schedules(after: after, limit: size + 1, owner: owner)
        let page = Array(rows.prefix(size))
        return (page, rows.count > size ? "s:" + page[size - 1].plantID : "")
    }

    /// Gives the schedule of `plantID` a new display name.
    public func rename(plantID: String, to name: String, owner: String) async throws -> Schedule {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= Self.maxPlantNameLength else {
            throw SchedulingError.invalidArgument("plant_name", .tooLong, "plant_name must be 1 to \(Self.maxPlantNameLength) characters")
        }
        guard let schedule = try await records.rename(plantID: plantID, to: trimmed, owner: owner) else {
            throw SchedulingError(.notFound, "no schedule for plant \(plantID)")
        }
        return schedule
    }

    /// Open tasks per plant: overdue, due today and later, in the owner's time zone.
    public func taskCounts(plantIDs: [String], owner: String) async throws -> [String: Plantguide_Scheduling_V1_PlantTaskCounts] {
        guard plantIDs.count <= 1_000 else { throw SchedulingError.invalidArgument("plant_ids", .tooLong, "plant_ids: at most 1000") }
        return try await records.taskCounts(plantIDs: plantIDs, owner: owner, at: now())
    }

    /// The counts of `plantIDs` (or of every plant of `scheduled` when there are none) from the rows of a
    /// per-plant count of open tasks, zero for a plant without open tasks.
    static func taskCounts(
        plantIDs: [String], scheduled: [String], rows: [(plantID: String, overdue: UInt32, today: UInt32, upcoming: UInt32)]
    ) -> [String: Plantguide_Scheduling_V1_PlantTaskCounts] {
        var counts: [String: Plantguide_Scheduling_V1_PlantTaskCounts] = [:]
        for plant in plantIDs + scheduled { counts[plant] = .init() }
        for row in rows where plantIDs.isEmpty || counts[row.plantID] != nil {
            counts[row.plantID] = .with { $0.overdue = row.overdue; $0.today = row.today; $0.upcoming = row.upcoming }
        }
        return counts
    }

    /// Deletes everything of `owner`: schedules, tasks, reminders not yet delivered (with their deliveries),
    /// webhooks and preferences, in one transaction.
    /// - Returns: how many schedules and tasks went.
    public func deleteAll(owner: String) async throws -> (schedules: Int, tasks: Int) {
        try await records.deleteAll(owner: owner)
    }
}
