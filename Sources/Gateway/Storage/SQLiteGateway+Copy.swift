import Foundation
import GRDB

/// A SQLite deployment's rows, read for a copy into PostgreSQL.
extension SQLiteGateway: GatewayCopySource {
    public func owners() async throws -> [String] {
        try await writer.read { db in
            try String.fetchAll(db, sql: """
                SELECT id FROM user UNION SELECT userID FROM identificationSettings UNION SELECT userID FROM pendingDeletion
                UNION SELECT userID FROM pendingCare
                """)
        }
    }

    public func everything(of userID: String) async throws -> GatewayOwnerRecords {
        var found = try await writer.read { db in
            var records = GatewayOwnerRecords(userID: userID)
            records.account = try Row.fetchOne(db, sql: "SELECT name, createdAt FROM user WHERE id = ?", arguments: [userID])
                .map { ($0["name"], $0["createdAt"]) }
            records.password = try Row.fetchOne(db, sql: "SELECT hash, updatedAt FROM password WHERE userID = ?", arguments: [userID])
                .map { ($0["hash"], $0["updatedAt"]) }
            records.tokens = try Row.fetchAll(db, sql: """
                SELECT id, hash, createdAt, revokedAt, expiresAt, idleTimeout, lastUsedAt FROM token WHERE userID = ?
                """, arguments: [userID]).map {
                CopiedToken(id: $0["id"], hash: $0["hash"], createdAt: $0["createdAt"], revokedAt: $0["revokedAt"], expiresAt: $0["expiresAt"],
                            idleTimeout: $0["idleTimeout"], lastUsedAt: $0["lastUsedAt"])
            }
            records.calendarLink = try Row.fetchOne(db, sql: "SELECT hash, createdAt FROM calendarLink WHERE userID = ?", arguments: [userID])
                .map { ($0["hash"], $0["createdAt"]) }
            records.shares = try Row.fetchAll(db, sql: "SELECT memberID, readWrite, createdAt FROM share WHERE ownerID = ?", arguments: [userID])
                .map { ($0["memberID"], $0["readWrite"], $0["createdAt"]) }
            records.identificationSettings = try Data.fetchOne(db, sql: "SELECT message FROM identificationSettings WHERE userID = ?",
                                                               arguments: [userID])
            records.pendingDeletions = try Row.fetchAll(db, sql: "SELECT plantID, since FROM pendingDeletion WHERE userID = ?", arguments: [userID])
                .map { ($0["plantID"], $0["since"]) }
            return records
        }
        found.pendingCare = try await careLookups(of: userID, limit: Int(Int32.max))
        found.passkeys = try await passkeys(userID: userID)
        return found
    }
}
