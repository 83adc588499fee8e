import Foundation
import PlantGuideStorage
import PostgresNIO

/// Passkeys and their ceremonies' challenges in PostgreSQL, shared by the gateway replicas.
extension PostgresGateway {
    public func addPasskeyChallenge(hash: Data, purpose: String, userID: String?, expiresAt: Double, at now: Double) async throws {
        _ = try await database.write { session in
            try await session.query("DELETE FROM passkey_challenge WHERE expires_at <= \(now)")
            try await session.query("""
                INSERT INTO passkey_challenge (hash, purpose, user_id, expires_at) VALUES (\(hash), \(purpose), \(userID), \(expiresAt))
                """)
        }
    }

    public func takePasskeyChallenge(hash: Data, purpose: String, at now: Double) async throws -> String? {
        try await database.write { session in
            let taken = try await session.all("""
                DELETE FROM passkey_challenge WHERE hash = \(hash) RETURNING purpose, user_id, expires_at
                """, as: (String, String?, Double).self).first
            guard let taken, taken.0 == purpose, taken.2 > now else { return nil }
            return taken.1 ?? ""
        }
    }

    public func userName(id: String) async throws -> String? {
        try await database.read { session in try await session.all("SELECT name FROM app_user WHERE id = \(id)", as: String.self).first }
    }

    public func addPasskey(_ passkey: StoredPasskey) async throws {
        try await database.write { session in
            let added = try await session.count("""
                INSERT INTO passkey (id, user_id, public_key, sign_count, name, created_at)
                VALUES (\(passkey.id), \(passkey.userID), \(passkey.publicKey), \(Int64(passkey.signCount)), \(passkey.name), \(passkey.createdAt))
                ON CONFLICT (id) DO NOTHING RETURNING 1
                """)
            guard added == 1 else { throw AccountError("this passkey is registered already") }
        }
    }

    public func passkey(id: String) async throws -> StoredPasskey? {
        try await database.read { session in
            try await session.all("\(unescaped: Self.passkeyColumns) WHERE passkey.id = \(id)", as: PasskeyRow.self).first.map(Self.passkey)
        }
    }

    public func passkeys(userID: String) async throws -> [StoredPasskey] {
        try await database.read { session in
            try await session.all("\(unescaped: Self.passkeyColumns) WHERE passkey.user_id = \(userID) ORDER BY passkey.created_at, passkey.id",
                                  as: PasskeyRow.self).map(Self.passkey)
        }
    }

    public func advancePasskey(id: String, from old: UInt32, to new: UInt32, at time: Double) async throws -> Bool {
        try await database.write { session in
            try await session.count("""
                UPDATE passkey SET sign_count = \(Int64(new)), last_used_at = \(time) WHERE id = \(id) AND sign_count = \(Int64(old)) RETURNING 1
                """) == 1
        }
    }

    public func deletePasskey(userID: String, id: String) async throws -> Bool {
        try await database.write { session in
            try await session.count("DELETE FROM passkey WHERE user_id = \(userID) AND id = \(id) RETURNING 1") > 0
        }
    }

    private typealias PasskeyRow = (String, String, String, Data, Int64, String, Double, Double?)

    private static let passkeyColumns = """
        SELECT passkey.id, passkey.user_id, app_user.name, passkey.public_key, passkey.sign_count, passkey.name, passkey.created_at,
            passkey.last_used_at
        FROM passkey JOIN app_user ON app_user.id = passkey.user_id
        """

    private static func passkey(_ row: PasskeyRow) -> StoredPasskey {
        StoredPasskey(id: row.0, userID: row.1, userName: row.2, publicKey: row.3, signCount: UInt32(clamping: row.4), name: row.5,
                      createdAt: row.6, lastUsedAt: row.7)
    }
}
