import Foundation

/// Cross-service work a service being down interrupted, kept in the gateway's database until it is done: a
/// deletion whose halves are not both finished, and a plant being saved or saved and still waiting for its care
/// info and schedule.
/// ``PendingWorkSweeper`` finishes both; entries survive a gateway restart.
public struct PendingWork: Sendable {
    public struct Deletion: Sendable, Equatable {
        public var userID: String
        public var plantID: String
    }

    public struct CareLookup: Sendable, Equatable {
        public var userID: String
        public var plantID: String
        public var scientificName: String
        public var plantName: String
        public var includeRepotting: Bool
        public var includePruning: Bool
        /// When it was recorded: a save records it before adding the plant, so a young lookup without its plant
        /// is a save still under way.
        public var since = Date()
    }

    /// How many pending entries are read at a time.
    static let pageSize = 100

    let records: any GatewayRecords
    /// The lookups and deletions being worked on; shared by every copy.
    let claims: PendingWorkClaims

    init(records: any GatewayRecords) {
        self.records = records
        claims = PendingWorkClaims(records: records)
    }

    /// Records a deletion before it starts; a care lookup still pending for the plant is dropped with it.
    func beginDeletion(_ deletion: Deletion) async throws {
        try await records.beginDeletion(deletion, at: Date().timeIntervalSince1970)
    }

    func finishDeletion(_ deletion: Deletion) async throws {
        try await records.finishDeletion(deletion)
    }

    func deletions(limit: Int = 100) async throws -> [Deletion] {
        try await records.deletions(limit: limit)
    }

    func addCareLookup(_ lookup: CareLookup) async throws {
        try await records.addCareLookup(lookup)
    }

    /// Removes a finished lookup; false when it was gone already (the plant was deleted meanwhile).
    func finishCareLookup(userID: String, plantID: String) async throws -> Bool {
        try await records.finishCareLookup(userID: userID, plantID: plantID)
    }

    /// One user's pending lookups, oldest first.
    func careLookups(of userID: String, limit: Int = 10_000) async throws -> [CareLookup] {
        try await records.careLookups(of: userID, limit: limit)
    }

    /// Everyone's pending lookups, oldest first, a page of `limit` after `cursor` (the previous page's last).
    func careLookups(after cursor: CareLookup? = nil, limit: Int = pageSize) async throws -> [CareLookup] {
        try await records.careLookups(after: cursor, limit: limit)
    }

    /// Drops every pending entry of a user whose data is all deleted.
    func forget(userID: String) async throws {
        try await records.forgetPendingWork(userID: userID)
    }
}
