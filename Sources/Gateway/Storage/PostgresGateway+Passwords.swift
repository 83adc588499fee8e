import Foundation
import PlantGuideStorage
import PostgresNIO

extension PostgresGateway {
    public func addUser(id: String, name: String, passwordHash: String, token: StoredToken, invitation: Data?) async throws {
        try await database.write { session in
            try await Self.insertUser(session, id: id, name: name, token: token)
            if let invitation {
                let used = try await session.count("""
                    UPDATE invitation SET used_by = \(id), used_at = \(token.createdAt)
                    WHERE hash = \(invitation) AND used_at IS NULL AND expires_at > \(token.createdAt) RETURNING 1
                    """)
                guard used == 1 else { throw InvitationError() }
            }
            try await session.query("INSERT INTO password (user_id, hash, updated_at) VALUES (\(id), \(passwordHash), \(token.createdAt))")
        }
    }

    public func password(ofName name: String) async throws -> (userID: String, hash: String)? {
        try await database.read { session in
            try await session.all("""
                SELECT app_user.id, password.hash FROM app_user JOIN password ON password.user_id = app_user.id WHERE app_user.name = \(name)
                """, as: (String, String).self).first.map { (userID: $0.0, hash: $0.1) }
        }
    }

    public func password(ofUserID userID: String) async throws -> (name: String, hash: String)? {
        try await database.read { session in
            try await session.all("""
                SELECT app_user.name, password.hash FROM app_user JOIN password ON password.user_id = app_user.id WHERE app_user.id = \(userID)
                """, as: (String, String).self).first.map { (name: $0.0, hash: $0.1) }
        }
    }

    public func signInBlockedUntil(keys: [String]) async throws -> Double {
        guard !keys.isEmpty else { return 0 }
        return try await database.read { session in
            let until: [Double?] = try await session.all("SELECT max(blocked_until) FROM sign_in_failure WHERE key = ANY(\(keys))",
                                                         as: Double?.self)
            return (until.first ?? nil) ?? 0
        }
    }

    public func noteSignInFailure(keys: [String], at now: Double, forgetAfter: Double,
                                  delay: @escaping @Sendable (String, Int) -> Double) async throws {
        try await database.write { session in
            // Sorted, so that two replicas counting the same keys lock their rows in the same order.
            for key in keys.sorted() {
                let counted: [Int] = try await session.all("""
                    INSERT INTO sign_in_failure AS failure (key, failures, blocked_until, last_failure) VALUES (\(key), 1, \(now), \(now))
                    ON CONFLICT (key) DO UPDATE SET
                        failures = CASE WHEN \(now) - failure.last_failure < \(forgetAfter) THEN failure.failures + 1 ELSE 1 END,
                        last_failure = \(now)
                    RETURNING failures
                    """, as: Int.self)
                let failures = counted.first ?? 1
                try await session.query("UPDATE sign_in_failure SET blocked_until = \(now + delay(key, failures)) WHERE key = \(key)")
            }
        }
    }

    public func forgetSignInFailures(key: String) async throws {
        try await database.write { session in
            try await session.query("DELETE FROM sign_in_failure WHERE key = \(key)")
        }
    }

    public func replacePassword(userID: String, hash: String, at time: Double) async throws -> Bool {
        try await database.write { session in
            try await session.count("UPDATE password SET hash = \(hash), updated_at = \(time) WHERE user_id = \(userID) RETURNING 1") > 0
        }
    }

    public func activeTokens(userID: String) async throws -> [TokenOwner] {
        try await database.read { session in
            try await session.all("""
                SELECT user_id, id, created_at, expires_at, idle_timeout, last_used_at FROM token
                WHERE user_id = \(userID) AND revoked_at IS NULL ORDER BY created_at, id
                """, as: TokenRow.self).map(Self.tokenOwner)
        }
    }

    public func revokeTokens(userID: String, only: String?, except: String?, at time: Double) async throws -> Int {
        try await database.write { session in
            let revoked = try await session.count("""
                UPDATE token SET revoked_at = \(time) WHERE user_id = \(userID) AND revoked_at IS NULL
                    AND (\(only)::text IS NULL OR id = \(only)) AND (\(except)::text IS NULL OR id <> \(except))
                RETURNING 1
                """)
            if revoked > 0 { try await session.query("UPDATE token_revocations SET count = count + \(revoked) WHERE id = 1") }
            return revoked
        }
    }
}
