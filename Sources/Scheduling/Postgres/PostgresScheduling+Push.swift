import Foundation
import PlantGuideStorage
import PostgresNIO

/// Browsers' push subscriptions in PostgreSQL, keyed by owner like the rest.
extension PostgresScheduling {
    public func registerPushSubscription(_ subscription: StoredPushSubscription, owner: String) async throws {
        try await write(owner: owner) { session in
            try await session.query("""
                INSERT INTO push_subscription (owner_id, id, endpoint, p256dh, auth, created_at)
                VALUES (\(owner), \(subscription.id), \(subscription.endpoint), \(subscription.p256dh), \(subscription.auth), \(subscription.createdAt))
                ON CONFLICT (owner_id, id) DO UPDATE SET endpoint = excluded.endpoint, p256dh = excluded.p256dh, auth = excluded.auth
                """)
        }
    }

    public func deletePushSubscription(id: String, owner: String) async throws -> Bool {
        try await write(owner: owner) { session in
            try await session.count("DELETE FROM push_subscription WHERE owner_id = \(owner) AND id = \(id) RETURNING 1") > 0
        }
    }

    public func pushSubscriptions(owner: String) async throws -> [StoredPushSubscription] {
        try await database.read { session in
            try await session.all("""
                SELECT id, endpoint, p256dh, auth, created_at FROM push_subscription WHERE owner_id = \(owner) ORDER BY created_at, id
                """, as: (String, String, Data, Data, Double).self).map(Self.pushSubscription)
        }
    }

    public func pushSubscription(id: String, owner: String) async throws -> StoredPushSubscription? {
        try await database.read { session in
            try await session.all("""
                SELECT id, endpoint, p256dh, auth, created_at FROM push_subscription WHERE owner_id = \(owner) AND id = \(id)
                """, as: (String, String, Data, Data, Double).self).first.map(Self.pushSubscription)
        }
    }

    static func pushSubscription(_ row: (String, String, Data, Data, Double)) -> StoredPushSubscription {
        StoredPushSubscription(id: row.0, endpoint: row.1, p256dh: row.2, auth: row.3, createdAt: row.4)
    }
}
