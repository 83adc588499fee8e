import Foundation
import GRDB

/// Cross-service work a service being down interrupted, kept in the gateway's database until it is done: a
/// deletion whose halves are not both finished, and a plant being saved or saved and still waiting for its care
/// info and schedule.
/// ``PendingWorkSweeper`` finishes both; entries survive a gateway restart.
struct PendingWork: Sendable {
    struct Deletion: Sendable, Equatable {
        var userID: String
        var plantID: String
    }

    struct CareLookup: Sendable, Equatable {
        var userID: String
        var plantID: String
        var scientificName: String
        var plantName: String
        var includeRepotting: Bool
        var includePruning: Bool
        /// When it was recorded: a save records it before adding the plant, so a young lookup without its plant
        /// is a save still under way.
        var since = Date()
    }

    let writer: any DatabaseWriter
    /// The lookups this process is working on; shared by every copy.
    let claims = PendingWorkClaims()

    /// Records a deletion before it starts; a care lookup still pending for the plant is dropped with it.
    func beginDeletion(_ deletion: Deletion) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM pendingCare WHERE userID = ? AND plantID = ?", arguments: [deletion.userID, deletion.plantID])
            try db.execute(sql: "INSERT OR IGNORE INTO pendingDeletion VALUES (?, ?, ?)",
                           arguments: [deletion.userID, deletion.plantID, Date().timeIntervalSince1970])
        }
    }

    func finishDeletion(_ deletion: Deletion) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM pendingDeletion WHERE userID = ? AND plantID = ?", arguments: [deletion.userID, deletion.plantID])
        }
    }

    func deletions(limit: Int = 100) async throws -> [Deletion] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT userID, plantID FROM pendingDeletion ORDER BY since LIMIT ?", arguments: [limit])
                .map { Deletion(userID: $0["userID"], plantID: $0["plantID"]) }
        }
    }

    func addCareLookup(_ lookup: CareLookup) async throws {
        try await writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO pendingCare VALUES (?, ?, ?, ?, ?, ?, ?)", arguments: [
                lookup.userID, lookup.plantID, lookup.scientificName, lookup.plantName, lookup.includeRepotting,
                lookup.includePruning, lookup.since.timeIntervalSince1970,
            ])
        }
    }

    /// Removes a finished lookup; false when it was gone already (the plant was deleted meanwhile).
    func finishCareLookup(userID: String, plantID: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM pendingCare WHERE userID = ? AND plantID = ?", arguments: [userID, plantID])
            return db.changesCount > 0
        }
    }

    /// Pending lookups, oldest first; only `userID`'s when given.
    func careLookups(of userID: String? = nil, limit: Int = 100) async throws -> [CareLookup] {
        try await writer.read { db in
            let sql = "SELECT * FROM pendingCare \(userID == nil ? "" : "WHERE userID = ? ")ORDER BY since LIMIT ?"
            let arguments: StatementArguments = userID.map { [$0, limit] } ?? [limit]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map {
                CareLookup(userID: $0["userID"], plantID: $0["plantID"], scientificName: $0["scientificName"], plantName: $0["plantName"],
                           includeRepotting: $0["includeRepotting"], includePruning: $0["includePruning"],
                           since: Date(timeIntervalSince1970: $0["since"]))
            }
        }
    }

    /// Drops every pending entry of a user whose data is all deleted.
    func forget(userID: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM pendingCare WHERE userID = ?", arguments: [userID])
            try db.execute(sql: "DELETE FROM pendingDeletion WHERE userID = ?", arguments: [userID])
        }
    }
}
