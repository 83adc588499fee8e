import Foundation
import GRDB
import PlantGuideProtos
import PlantGuideRPCCore
import PlantGuideStorage
import SwiftProtobuf

/// The gateway's state in one SQLite file (``GatewayDatabase``): the default for one instance.
public struct SQLiteGateway: GatewayRecords {
    let writer: TracedDatabase

    public init(writer: any DatabaseWriter) {
        self.writer = TracedDatabase(writer)
    }

    /// Opens (creating and migrating) `<folder>/gateway.sqlite`.
    public static func open(folder: URL) throws -> SQLiteGateway {
        SQLiteGateway(writer: try GatewayDatabase.open(path: folder.appendingPathComponent("gateway.sqlite").path))
    }

    // MARK: Users and tokens

    public func addUser(id: String, name: String, token: StoredToken) async throws {
        try await writer.write { db in try Self.insertUser(db, id: id, name: name, token: token) }
    }

    /// Inserts a user with a first token (both sign-up paths).
    /// - Throws: ``AccountError`` when the name is taken.
    static func insertUser(_ db: Database, id: String, name: String, token: StoredToken) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE name = ?", arguments: [name]) == nil else {
            throw AccountError("a user named '\(name)' exists already")
        }
        try db.execute(sql: "INSERT INTO user (id, name, createdAt) VALUES (?, ?, ?)", arguments: [id, name, token.createdAt])
        try insert(db, token, userID: id)
    }

    public func addToken(userName: String, token: StoredToken) async throws -> String {
        try await writer.write { db in
            guard let userID = try String.fetchOne(db, sql: "SELECT id FROM user WHERE name = ?", arguments: [userName]) else {
                throw AccountError("no user named '\(userName)'")
            }
            try Self.insert(db, token, userID: userID)
            return userID
        }
    }

    private static func insert(_ db: Database, _ token: StoredToken, userID: String) throws {
        try db.execute(sql: "INSERT INTO token (id, userID, hash, createdAt, expiresAt, idleTimeout) VALUES (?, ?, ?, ?, ?, ?)",
                       arguments: [token.id, userID, token.hash, token.createdAt, token.expiresAt, token.idleTimeout])
    }

    public func users() async throws -> [AccountStore.User] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT user.id, user.name, user.createdAt,
                       (SELECT COUNT(*) FROM token WHERE token.userID = user.id AND revokedAt IS NULL) AS active
                FROM user ORDER BY user.name
                """).map { row in
                AccountStore.User(id: row["id"], name: row["name"], createdAt: Date(timeIntervalSince1970: row["createdAt"]),
                                  activeTokens: row["active"])
            }
        }
    }

    public func revoke(tokenID: String, at time: Double) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "UPDATE token SET revokedAt = ? WHERE id = ? AND revokedAt IS NULL", arguments: [time, tokenID])
            guard db.changesCount > 0 else { return false }
            try db.execute(sql: "UPDATE tokenRevocations SET count = count + 1 WHERE id = 1")
            return true
        }
    }

    public func revocationCount() async throws -> Int {
        try await writer.read { db in try Int.fetchOne(db, sql: "SELECT count FROM tokenRevocations WHERE id = 1") ?? 0 }
    }

    public func owner(ofTokenHash hash: Data) async throws -> TokenOwner? {
        try await writer.read { db in
            // Every authenticated call reads its token: the statement is prepared once per connection.
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.tokenOwnerColumns) FROM token WHERE hash = ? AND revokedAt IS NULL"),
                             arguments: [hash])
                .map(Self.tokenOwner)
        }
    }

    public func touchToken(id: String, at time: Double) async throws {
        try await writer.write { db in
            try db.execute(sql: "UPDATE token SET lastUsedAt = max(coalesce(lastUsedAt, 0), ?) WHERE id = ?", arguments: [time, id])
        }
    }

    static let tokenOwnerColumns = "userID, id, createdAt, expiresAt, idleTimeout, lastUsedAt"

    static func tokenOwner(_ row: Row) -> TokenOwner {
        TokenOwner(userID: row[0], tokenID: row[1], createdAt: row[2], expiresAt: row[3], idleTimeout: row[4],
                   lastUsedAt: row[5] ?? row[2])
    }

    public func setCalendarLink(userID: String, hash: Data, at time: Double) async throws {
        try await writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO calendarLink (userID, hash, createdAt) VALUES (?, ?, ?)", arguments: [userID, hash, time])
        }
    }

    public func deleteCalendarLink(userID: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM calendarLink WHERE userID = ?", arguments: [userID])
            return db.changesCount > 0
        }
    }

    public func owner(ofCalendarHash hash: Data) async throws -> String? {
        try await writer.read { db in try String.fetchOne(db, sql: "SELECT userID FROM calendarLink WHERE hash = ?", arguments: [hash]) }
    }

    // MARK: Households

    public func share(ownerID: String, memberName: String, readWrite: Bool, at time: Double) async throws -> Plantguide_Gateway_V1_Share? {
        try await writer.write { db in
            guard let memberID = try String.fetchOne(db, sql: "SELECT id FROM user WHERE name = ?", arguments: [memberName]) else { return nil }
            try HouseholdStore.refuseSelfShare(ownerID: ownerID, memberID: memberID)
            try db.execute(sql: """
                INSERT INTO share (ownerID, memberID, readWrite, createdAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (ownerID, memberID) DO UPDATE SET readWrite = excluded.readWrite
                """, arguments: [ownerID, memberID, readWrite, time])
            return try Self.shares(db, where: "share.ownerID = ? AND share.memberID = ?", [ownerID, memberID])[0]
        }
    }

    public func revokeShare(ownerID: String, memberName: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM share WHERE ownerID = ? AND memberID = (SELECT id FROM user WHERE name = ?)",
                           arguments: [ownerID, memberName])
            return db.changesCount > 0
        }
    }

    public func shares(of userID: String) async throws -> (given: [Plantguide_Gateway_V1_Share], received: [Plantguide_Gateway_V1_Share]) {
        try await writer.read { db in
            (try Self.shares(db, where: "share.ownerID = ?", [userID]), try Self.shares(db, where: "share.memberID = ?", [userID]))
        }
    }

    public func access(ownerName: String, memberID: String) async throws -> (ownerID: String, readWrite: Bool)? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: """
                SELECT share.ownerID, share.readWrite FROM share JOIN user ON user.id = share.ownerID
                WHERE user.name = ? AND share.memberID = ?
                """, arguments: [ownerName, memberID]).map { ($0["ownerID"], $0["readWrite"]) }
        }
    }

    private static func shares(_ db: Database, where condition: String, _ arguments: StatementArguments) throws -> [Plantguide_Gateway_V1_Share] {
        try Row.fetchAll(db, sql: """
            SELECT owner.name AS ownerName, member.name AS memberName, share.readWrite, share.createdAt
            FROM share JOIN user AS owner ON owner.id = share.ownerID JOIN user AS member ON member.id = share.memberID
            WHERE \(condition) ORDER BY owner.name, member.name
            """, arguments: arguments).map { row in
            HouseholdStore.share(owner: row["ownerName"], member: row["memberName"], readWrite: row["readWrite"], createdAt: row["createdAt"])
        }
    }

    // MARK: Identification settings

    public func identificationSettings(userID: String) async throws -> Data? {
        try await writer.read { db in
            try Data.fetchOne(db, sql: "SELECT message FROM identificationSettings WHERE userID = ?", arguments: [userID])
        }
    }

    public func replaceIdentificationSettings(_ message: Data, userID: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO identificationSettings (userID, message) VALUES (?, ?)", arguments: [userID, message])
        }
    }

    public func forgetIdentificationSettings(userID: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM identificationSettings WHERE userID = ?", arguments: [userID])
        }
    }

    // MARK: Pending work

    public func beginDeletion(_ deletion: PendingWork.Deletion, at time: Double) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM pendingCare WHERE userID = ? AND plantID = ?", arguments: [deletion.userID, deletion.plantID])
            try db.execute(sql: "INSERT OR IGNORE INTO pendingDeletion VALUES (?, ?, ?)", arguments: [deletion.userID, deletion.plantID, time])
        }
    }

    public func finishDeletion(_ deletion: PendingWork.Deletion) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM pendingDeletion WHERE userID = ? AND plantID = ?", arguments: [deletion.userID, deletion.plantID])
        }
    }

    public func deletions(limit: Int) async throws -> [PendingWork.Deletion] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT userID, plantID FROM pendingDeletion ORDER BY since LIMIT ?", arguments: [limit])
                .map { PendingWork.Deletion(userID: $0["userID"], plantID: $0["plantID"]) }
        }
    }

    public func addCareLookup(_ lookup: PendingWork.CareLookup) async throws {
        try await writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO pendingCare VALUES (?, ?, ?, ?, ?, ?, ?)", arguments: [
                lookup.userID, lookup.plantID, lookup.scientificName, lookup.plantName, lookup.includeRepotting,
                lookup.includePruning, lookup.since.timeIntervalSince1970,
            ])
        }
    }

    public func finishCareLookup(userID: String, plantID: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM pendingCare WHERE userID = ? AND plantID = ?", arguments: [userID, plantID])
            return db.changesCount > 0
        }
    }

    public func careLookups(of userID: String, limit: Int) async throws -> [PendingWork.CareLookup] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM pendingCare WHERE userID = ? ORDER BY since LIMIT ?", arguments: [userID, limit])
                .map(Self.lookup)
        }
    }

    public func careLookups(after cursor: PendingWork.CareLookup?, limit: Int) async throws -> [PendingWork.CareLookup] {
        try await writer.read { db in
            guard let cursor else {
                return try Row.fetchAll(db, sql: "SELECT * FROM pendingCare ORDER BY since, userID, plantID LIMIT ?", arguments: [limit])
                    .map(Self.lookup)
            }
            return try Row.fetchAll(db, sql: """
                SELECT * FROM pendingCare WHERE (since, userID, plantID) > (?, ?, ?) ORDER BY since, userID, plantID LIMIT ?
                """, arguments: [cursor.since.timeIntervalSince1970, cursor.userID, cursor.plantID, limit]).map(Self.lookup)
        }
    }

    private static func lookup(_ row: Row) -> PendingWork.CareLookup {
        PendingWork.CareLookup(userID: row["userID"], plantID: row["plantID"], scientificName: row["scientificName"], plantName: row["plantName"],
                               includeRepotting: row["includeRepotting"], includePruning: row["includePruning"],
                               since: Date(timeIntervalSince1970: row["since"]))
    }

    public func forgetPendingWork(userID: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM pendingCare WHERE userID = ?", arguments: [userID])
            try db.execute(sql: "DELETE FROM pendingDeletion WHERE userID = ?", arguments: [userID])
        }
    }

    // MARK: Claims on pending work (one gateway process per SQLite file: its claims in memory suffice)

    public func claimPending(_ claim: PendingClaim, by claimer: String, until: Double, at now: Double) async throws -> Bool { true }

    public func releasePending(_ claim: PendingClaim, by claimer: String, until: Double) async throws {}

    public func othersClaimPending(userID: String, besides claimer: String, at now: Double) async throws -> Bool { false }

    // MARK: Rate limits across replicas

    /// Nil: one gateway process uses a SQLite database alone.
    public func spendShared(_ spent: [String: Int], watching: [String], capacity: Int, perSecond: Int, at now: Double) async throws -> [String: Double]? { nil }

    public func forgetSharedBuckets(before: Double) async throws {}
}
