import Foundation
import GRDB

extension SQLiteGateway {
    public func addUser(id: String, name: String, passwordHash: String, token: StoredToken, invitation: Data?) async throws {
        try await writer.write { db in
            try Self.insertUser(db, id: id, name: name, token: token)
            if let invitation {
                try db.execute(sql: "UPDATE invitation SET usedBy = ?, usedAt = ? WHERE hash = ? AND usedAt IS NULL AND expiresAt > ?",
                               arguments: [id, token.createdAt, invitation, token.createdAt])
                guard db.changesCount == 1 else { throw InvitationError() }
            }
            try db.execute(sql: "INSERT INTO password (userID, hash, updatedAt) VALUES (?, ?, ?)", arguments: [id, passwordHash, token.createdAt])
        }
    }

    public func password(ofName name: String) async throws -> (userID: String, hash: String)? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT user.id, password.hash FROM user JOIN password ON password.userID = user.id WHERE user.name = ?",
                             arguments: [name]).map { (userID: $0[0], hash: $0[1]) }
        }
    }

    public func password(ofUserID userID: String) async throws -> (name: String, hash: String)? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT user.name, password.hash FROM user JOIN password ON password.userID = user.id WHERE user.id = ?",
                             arguments: [userID]).map { (name: $0[0], hash: $0[1]) }
        }
    }

    public func signInBlockedUntil(keys: [String]) async throws -> Double {
        guard !keys.isEmpty else { return 0 }
        return try await writer.read { db in
            let marks = databaseQuestionMarks(count: keys.count)
            return try Double.fetchOne(db, sql: "SELECT max(blockedUntil) FROM signInFailure WHERE key IN (\(marks))",
                                       arguments: StatementArguments(keys)) ?? 0
        }
    }

    public func noteSignInFailure(keys: [String], at now: Double, forgetAfter: Double,
                                  delay: @escaping @Sendable (String, Int) -> Double) async throws {
        try await writer.write { db in
            for key in keys {
                let row = try Row.fetchOne(db, sql: "SELECT failures, lastFailure FROM signInFailure WHERE key = ?", arguments: [key])
                let earlier: Int = row.flatMap { now - ($0[1] as Double) < forgetAfter ? $0[0] : nil } ?? 0
                let failures = earlier + 1
                try db.execute(sql: """
                    INSERT INTO signInFailure (key, failures, blockedUntil, lastFailure) VALUES (?, ?, ?, ?)
                    ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, blockedUntil = excluded.blockedUntil,
                                                    lastFailure = excluded.lastFailure
                    """, arguments: [key, failures, now + delay(key, failures), now])
            }
        }
    }

    public func forgetSignInFailures(key: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM signInFailure WHERE key = ?", arguments: [key])
        }
    }

    public func replacePassword(userID: String, hash: String, at time: Double) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "UPDATE password SET hash = ?, updatedAt = ? WHERE userID = ?", arguments: [hash, time, userID])
            return db.changesCount > 0
        }
    }

    public func activeTokens(userID: String) async throws -> [TokenOwner] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.tokenOwnerColumns) FROM token WHERE userID = ? AND revokedAt IS NULL ORDER BY createdAt, id
                """, arguments: [userID]).map(Self.tokenOwner)
        }
    }

    public func revokeTokens(userID: String, only: String?, except: String?, at time: Double) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: """
                UPDATE token SET revokedAt = ? WHERE userID = ? AND revokedAt IS NULL
                    AND (? IS NULL OR id = ?) AND (? IS NULL OR id <> ?)
                """, arguments: [time, userID, only, only, except, except])
            let revoked = db.changesCount
            if revoked > 0 { try db.execute(sql: "UPDATE tokenRevocations SET count = count + ? WHERE id = 1", arguments: [revoked]) }
            return revoked
        }
    }
}
