import Foundation
import GRDB

/// Passkeys and their ceremonies' challenges in SQLite.
extension SQLiteGateway {
    public func addPasskeyChallenge(hash: Data, purpose: String, userID: String?, expiresAt: Double, at now: Double) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM passkeyChallenge WHERE expiresAt <= ?", arguments: [now])
            try db.execute(sql: "INSERT INTO passkeyChallenge (hash, purpose, userID, expiresAt) VALUES (?, ?, ?, ?)",
                           arguments: [hash, purpose, userID, expiresAt])
        }
    }

    public func takePasskeyChallenge(hash: Data, purpose: String, at now: Double) async throws -> String? {
        try await writer.write { db in
            let row = try Row.fetchOne(db, sql: "DELETE FROM passkeyChallenge WHERE hash = ? RETURNING purpose, userID, expiresAt",
                                       arguments: [hash])
            guard let row, row[0] as String == purpose, row[2] as Double > now else { return nil }
            return row[1] as String? ?? ""
        }
    }

    public func userName(id: String) async throws -> String? {
        try await writer.read { db in try String.fetchOne(db, sql: "SELECT name FROM user WHERE id = ?", arguments: [id]) }
    }

    public func addPasskey(_ passkey: StoredPasskey) async throws {
        try await writer.write { db in
            try db.execute(sql: """
                INSERT INTO passkey (id, userID, publicKey, signCount, name, createdAt) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
                """, arguments: [passkey.id, passkey.userID, passkey.publicKey, Int64(passkey.signCount), passkey.name, passkey.createdAt])
            guard db.changesCount == 1 else { throw AccountError("this passkey is registered already") }
        }
    }

    public func passkey(id: String) async throws -> StoredPasskey? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "\(Self.passkeyColumns) WHERE passkey.id = ?", arguments: [id]).map(Self.passkey)
        }
    }

    public func passkeys(userID: String) async throws -> [StoredPasskey] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "\(Self.passkeyColumns) WHERE passkey.userID = ? ORDER BY passkey.createdAt, passkey.id",
                             arguments: [userID]).map(Self.passkey)
        }
    }

    public func advancePasskey(id: String, from old: UInt32, to new: UInt32, at time: Double) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "UPDATE passkey SET signCount = ?, lastUsedAt = ? WHERE id = ? AND signCount = ?",
                           arguments: [Int64(new), time, id, Int64(old)])
            return db.changesCount == 1
        }
    }

    public func deletePasskey(userID: String, id: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM passkey WHERE userID = ? AND id = ?", arguments: [userID, id])
            return db.changesCount > 0
        }
    }

    private static let passkeyColumns = """
        SELECT passkey.id, passkey.userID, user.name, passkey.publicKey, passkey.signCount, passkey.name, passkey.createdAt, passkey.lastUsedAt
        FROM passkey JOIN user ON user.id = passkey.userID
        """

    private static func passkey(_ row: Row) -> StoredPasskey {
        StoredPasskey(id: row[0], userID: row[1], userName: row[2], publicKey: row[3], signCount: UInt32(clamping: row[4] as Int64),
                      name: row[5], createdAt: row[6], lastUsedAt: row[7])
    }
}
