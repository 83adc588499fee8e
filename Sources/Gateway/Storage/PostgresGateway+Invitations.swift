import Foundation
import PlantGuideStorage
import PostgresNIO

/// Invitations to sign up (`--signup invite`) in PostgreSQL.
extension PostgresGateway {
    public func addInvitations(_ invitations: [(id: String, hash: Data)], createdAt: Double, expiresAt: Double) async throws {
        _ = try await database.write { session in
            for invitation in invitations {
                try await session.query("""
                    INSERT INTO invitation (id, hash, created_at, expires_at) VALUES (\(invitation.id), \(invitation.hash), \(createdAt), \(expiresAt))
                    """)
            }
        }
    }

    public func invitations() async throws -> [AccountStore.Invitation] {
        try await database.read { session in
            try await session.all("""
                SELECT invitation.id, invitation.created_at, invitation.expires_at, app_user.name, invitation.used_at
                FROM invitation LEFT JOIN app_user ON app_user.id = invitation.used_by ORDER BY invitation.created_at DESC, invitation.id
                """, as: (String, Double, Double, String?, Double?).self)
                .map { AccountStore.Invitation(id: $0.0, createdAt: $0.1, expiresAt: $0.2, usedBy: $0.3, usedAt: $0.4) }
        }
    }

    public func deleteInvitation(id: String) async throws -> Bool {
        try await database.write { session in
            try await session.count("DELETE FROM invitation WHERE id = \(id) AND used_at IS NULL RETURNING 1") > 0
        }
    }
}
