import Foundation
import PlantGuideStorage
import PostgresNIO

/// What a copy writes into PostgreSQL, and reads back to compare.
extension PostgresGateway: GatewayCopySource {
    public func owners() async throws -> [String] {
        try await database.read { session in
            try await session.all("""
                SELECT id FROM app_user UNION SELECT user_id FROM identification_settings UNION SELECT user_id FROM pending_deletion
                UNION SELECT user_id FROM pending_care
                """, as: String.self)
        }
    }

    public func everything(of userID: String) async throws -> GatewayOwnerRecords {
        let lookups = try await careLookups(of: userID, limit: Int(Int32.max))
        let passkeys = try await passkeys(userID: userID)
        return try await database.read { session in
            var records = GatewayOwnerRecords(userID: userID)
            records.account = try await session.all("SELECT name, created_at FROM app_user WHERE id = \(userID)", as: (String, Double).self).first
                .map { (name: $0.0, createdAt: $0.1) }
            records.password = try await session.all("SELECT hash, updated_at FROM password WHERE user_id = \(userID)", as: (String, Double).self)
                .first.map { (hash: $0.0, updatedAt: $0.1) }
            records.tokens = try await session.all("""
                SELECT id, hash, created_at, revoked_at, expires_at, idle_timeout, last_used_at FROM token WHERE user_id = \(userID)
                """, as: (String, Data, Double, Double?, Double?, Double?, Double?).self).map {
                CopiedToken(id: $0.0, hash: $0.1, createdAt: $0.2, revokedAt: $0.3, expiresAt: $0.4, idleTimeout: $0.5, lastUsedAt: $0.6)
            }
            records.calendarLink = try await session.all("SELECT hash, created_at FROM calendar_link WHERE user_id = \(userID)", as: (Data, Double).self)
                .first.map { (hash: $0.0, createdAt: $0.1) }
            records.shares = try await session.all("""
                SELECT member_id, read_write, created_at FROM share WHERE owner_id = \(userID)
                """, as: (String, Bool, Double).self).map { (memberID: $0.0, readWrite: $0.1, createdAt: $0.2) }
            let settings: [Data] = try await session.all("SELECT message FROM identification_settings WHERE user_id = \(userID)", as: Data.self)
            records.identificationSettings = settings.first
            records.pendingDeletions = try await session.all("""
                SELECT plant_id, since FROM pending_deletion WHERE user_id = \(userID)
                """, as: (String, Double).self).map { (plantID: $0.0, since: $0.1) }
            records.pendingCare = lookups
            records.passkeys = passkeys
            return records
        }
    }

    /// Writes everyone's accounts first (shares refer to members), then each user's rows, each replacing the row of
    /// the same key: running a copy again converges on the source. The revocation counter becomes the source's.
    public func replace(_ everyone: [GatewayOwnerRecords], revocations: Int) async throws {
        _ = try await database.write { session in
            for records in everyone {
                guard let account = records.account else { continue }
                try await session.query("""
                    INSERT INTO app_user (id, name, created_at) VALUES (\(records.userID), \(account.name), \(account.createdAt))
                    ON CONFLICT (id) DO UPDATE SET name = excluded.name, created_at = excluded.created_at
                    """)
            }
            for records in everyone { try await Self.replaceRows(session, records) }
            try await session.query("UPDATE token_revocations SET count = \(revocations) WHERE id = 1")
        }
    }

    private static func replaceRows(_ session: PostgresSession, _ records: GatewayOwnerRecords) async throws {
        let user = records.userID
        if let password = records.password {
            try await session.query("""
                INSERT INTO password (user_id, hash, updated_at) VALUES (\(user), \(password.hash), \(password.updatedAt))
                ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at
                """)
        }
        for token in records.tokens {
            try await session.query("""
                INSERT INTO token (id, user_id, hash, created_at, revoked_at, expires_at, idle_timeout, last_used_at)
                VALUES (\(token.id), \(user), \(token.hash), \(token.createdAt), \(token.revokedAt), \(token.expiresAt), \(token.idleTimeout),
                        \(token.lastUsedAt))
                ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, hash = excluded.hash, created_at = excluded.created_at,
                    revoked_at = excluded.revoked_at, expires_at = excluded.expires_at, idle_timeout = excluded.idle_timeout,
                    last_used_at = excluded.last_used_at
                """)
        }
        for passkey in records.passkeys {
            try await session.query("""
                INSERT INTO passkey (id, user_id, public_key, sign_count, name, created_at, last_used_at)
                VALUES (\(passkey.id), \(user), \(passkey.publicKey), \(Int64(passkey.signCount)), \(passkey.name), \(passkey.createdAt),
                        \(passkey.lastUsedAt))
                ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, public_key = excluded.public_key, sign_count = excluded.sign_count,
                    name = excluded.name, created_at = excluded.created_at, last_used_at = excluded.last_used_at
                """)
        }
        if let link = records.calendarLink {
            try await session.query("""
                INSERT INTO calendar_link (user_id, hash, created_at) VALUES (\(user), \(link.hash), \(link.createdAt))
                ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at
                """)
        }
        for share in records.shares {
            try await session.query("""
                INSERT INTO share (owner_id, member_id, read_write, created_at) VALUES (\(user), \(share.memberID), \(share.readWrite), \(share.createdAt))
                ON CONFLICT (owner_id, member_id) DO UPDATE SET read_write = excluded.read_write, created_at = excluded.created_at
                """)
        }
        if let settings = records.identificationSettings {
            try await session.query("""
                INSERT INTO identification_settings (user_id, message) VALUES (\(user), \(settings))
                ON CONFLICT (user_id) DO UPDATE SET message = excluded.message
                """)
        }
        for deletion in records.pendingDeletions {
            try await session.query("""
                INSERT INTO pending_deletion (user_id, plant_id, since) VALUES (\(user), \(deletion.plantID), \(deletion.since))
                ON CONFLICT (user_id, plant_id) DO UPDATE SET since = excluded.since
                """)
        }
        for lookup in records.pendingCare {
            try await session.query("""
                INSERT INTO pending_care (user_id, plant_id, scientific_name, plant_name, include_repotting, include_pruning, since)
                VALUES (\(user), \(lookup.plantID), \(lookup.scientificName), \(lookup.plantName), \(lookup.includeRepotting),
                        \(lookup.includePruning), \(lookup.since.timeIntervalSince1970))
                ON CONFLICT (user_id, plant_id) DO UPDATE SET scientific_name = excluded.scientific_name, plant_name = excluded.plant_name,
                    include_repotting = excluded.include_repotting, include_pruning = excluded.include_pruning, since = excluded.since
                """)
        }
    }
}
