import Foundation
import GRDB
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
        return try await writer.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT plantID, message FROM schedule WHERE ownerID = ? AND plantID > ? ORDER BY plantID LIMIT ?
                """, arguments: [owner, after, size + 1])
            // A stored message that does not parse is skipped, never fatal (written by a version that is gone).
            let page = rows.prefix(size).compactMap { row in try? Schedule(serializedBytes: row["message"] as Data) }
            let next = rows.count > size ? "s:" + (rows[size - 1]["plantID"] as String) : ""
            return (page, next)
        }
    }

    /// Gives the schedule of `plantID` a new display name.
    public func rename(plantID: String, to name: String, owner: String) async throws -> Schedule {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= Self.maxPlantNameLength else {
            throw SchedulingError.invalidArgument("plant_name", .tooLong, "plant_name must be 1 to \(Self.maxPlantNameLength) characters")
        }
        return try await writer.write { db in
            guard let message = try Data.fetchOne(db, sql: "SELECT message FROM schedule WHERE ownerID = ? AND plantID = ?",
                                                  arguments: [owner, plantID]) else {
                throw SchedulingError(.notFound, "no schedule for plant \(plantID)")
            }
            var schedule = try Schedule(serializedBytes: message)
            schedule.plantName = trimmed
            try db.execute(sql: "UPDATE schedule SET message = ? WHERE ownerID = ? AND plantID = ?",
                           arguments: [try schedule.serializedData(), owner, plantID])
            return schedule
        }
    }

    /// Open tasks per plant: overdue, due today and later, in the owner's time zone.
    public func taskCounts(plantIDs: [String], owner: String) async throws -> [String: Plantguide_Scheduling_V1_PlantTaskCounts] {
        guard plantIDs.count <= 1_000 else { throw SchedulingError.invalidArgument("plant_ids", .tooLong, "plant_ids: at most 1000") }
        let time = now()
        return try await writer.read { db in
            let zone = try SchedulePreferences(wire: Self.preferences(db, owner: owner)).timeZone
            let today = Self.localDate(time, zone).dayNumber
            var counts: [String: Plantguide_Scheduling_V1_PlantTaskCounts] = [:]
            for plant in plantIDs { counts[plant] = .init() }
            let rows = try Row.fetchAll(db, sql: """
                SELECT plantID, SUM(dueDay < ?), SUM(dueDay = ?), SUM(dueDay > ?) FROM task
                WHERE ownerID = ? AND state IN (1, 3) GROUP BY plantID
                """, arguments: [today, today, today, owner])
            for row in rows {
                let plant: String = row[0]
                guard plantIDs.isEmpty || counts[plant] != nil else { continue }
                counts[plant] = .with { $0.overdue = row[1]; $0.today = row[2]; $0.upcoming = row[3] }
            }
            if plantIDs.isEmpty {
                for plant in try String.fetchAll(db, sql: "SELECT plantID FROM schedule WHERE ownerID = ?", arguments: [owner])
                where counts[plant] == nil {
                    counts[plant] = .init()
                }
            }
            return counts
        }
    }

    /// Deletes everything of `owner`: schedules, tasks, reminders not yet delivered (with their deliveries),
    /// webhooks and preferences, in one transaction.
    /// - Returns: how many schedules and tasks went.
    public func deleteAll(owner: String) async throws -> (schedules: Int, tasks: Int) {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM reminder WHERE ownerID = ?", arguments: [owner])
            try db.execute(sql: "DELETE FROM schedule WHERE ownerID = ?", arguments: [owner])
            let schedules = db.changesCount
            try db.execute(sql: "DELETE FROM task WHERE ownerID = ?", arguments: [owner])
            let tasks = db.changesCount
            try db.execute(sql: "DELETE FROM webhook WHERE ownerID = ?", arguments: [owner])
            try db.execute(sql: "DELETE FROM preferences WHERE ownerID = ?", arguments: [owner])
            return (schedules, tasks)
        }
    }
}
