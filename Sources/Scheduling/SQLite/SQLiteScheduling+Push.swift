import Foundation
import GRDB

/// Browsers' push subscriptions in SQLite.
extension SQLiteScheduling {
    public func registerPushSubscription(_ subscription: StoredPushSubscription, owner: String) async throws {
        try await writer.write { db in
            try db.execute(sql: """
                INSERT INTO pushSubscription (ownerID, id, endpoint, p256dh, auth, createdAt, language) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (ownerID, id) DO UPDATE SET endpoint = excluded.endpoint, p256dh = excluded.p256dh, auth = excluded.auth,
                    language = excluded.language
                """, arguments: [owner, subscription.id, subscription.endpoint, subscription.p256dh, subscription.auth, subscription.createdAt,
                                 subscription.language])
        }
    }

    public func deletePushSubscription(id: String, owner: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM pushSubscription WHERE ownerID = ? AND id = ?", arguments: [owner, id])
            return db.changesCount > 0
        }
    }

    public func pushSubscriptions(owner: String) async throws -> [StoredPushSubscription] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM pushSubscription WHERE ownerID = ? ORDER BY createdAt, id", arguments: [owner])
                .map(Self.pushSubscription)
        }
    }

    public func pushSubscription(id: String, owner: String) async throws -> StoredPushSubscription? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM pushSubscription WHERE ownerID = ? AND id = ?", arguments: [owner, id])
                .map(Self.pushSubscription)
        }
    }

    static func pushSubscription(_ row: Row) -> StoredPushSubscription {
        StoredPushSubscription(id: row["id"], endpoint: row["endpoint"], p256dh: row["p256dh"], auth: row["auth"], createdAt: row["createdAt"],
                               language: row["language"])
    }
}
