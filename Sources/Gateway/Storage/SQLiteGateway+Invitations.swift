import Foundation
import GRDB

/// Invitations to sign up (`--signup invite`) in SQLite.
extension SQLiteGateway {
    public func addInvitations(_ invitations: [(id: String, hash: Data)], createdAt: Double, expiresAt: Double) async throws {
        try await writer.write { db in
            for invitation in invitations {
                try db.execute(sql: "INSERT INTO invitation (id, hash, createdAt, expiresAt) VALUES (?, ?, ?, ?)",
                               arguments: [invitation.id, invitation.hash, createdAt, expiresAt])
            }
        }
    }

    public func invitations() async throws -> [AccountStore.Invitation] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT invitation.id, invitation.createdAt, invitation.expiresAt, user.name, invitation.usedAt
                FROM invitation LEFT JOIN user ON user.id = invitation.usedBy ORDER BY invitation.createdAt DESC, invitation.id
                """).map { AccountStore.Invitation(id: $0[0], createdAt: $0[1], expiresAt: $0[2], usedBy: $0[3], usedAt: $0[4]) }
        }
    }

    public func deleteInvitation(id: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM invitation WHERE id = ? AND usedAt IS NULL", arguments: [id])
            return db.changesCount > 0
        }
    }
}
