import Foundation
import PlantGuideStorage
import PostgresNIO

/// Browsers' push subscriptions in PostgreSQL, keyed by owner like the rest.
extension PostgresScheduling {
    public func registerPushSubscription(_ subscription: StoredPushSubscription, owner: String) async throws {
        try await write(owner: owner) { session in try await Self.upsert(session, subscription, owner: owner, keepingCreatedAt: true) }
    }

    public func deletePushSubscription(id: String, owner: String) async throws -> Bool {
        try await write(owner: owner) { session in
            try await session.count("DELETE FROM push_subscription WHERE owner_id = \(owner) AND id = \(id) RETURNING 1") > 0
        }
    }

    public func pushSubscriptions(owner: String) async throws -> [StoredPushSubscription] {
        try await database.read { session in try await Self.pushSubscriptions(session, owner: owner, orderedBy: "created_at, id") }
    }

    public func pushSubscription(id: String, owner: String) async throws -> StoredPushSubscription? {
        try await database.read { session in
            try await session.all("""
                SELECT \(unescaped: Self.pushColumns) FROM push_subscription WHERE owner_id = \(owner) AND id = \(id)
                """, as: PushRow.self).first.map(Self.pushSubscription)
        }
    }

    /// Writes `subscription` of `owner`, replacing the row of the same id: its keys always, its making time only when
    /// not `keepingCreatedAt` (a copy between backends carries the original's).
    static func upsert(_ session: PostgresSession, _ subscription: StoredPushSubscription, owner: String, keepingCreatedAt: Bool) async throws {
        try await session.query("""
            INSERT INTO push_subscription (owner_id, id, endpoint, p256dh, auth, created_at, language)
            VALUES (\(owner), \(subscription.id), \(subscription.endpoint), \(subscription.p256dh), \(subscription.auth), \(subscription.createdAt),
                    \(subscription.language))
            ON CONFLICT (owner_id, id) DO UPDATE SET endpoint = excluded.endpoint, p256dh = excluded.p256dh, auth = excluded.auth,
                language = excluded.language,
                created_at = CASE WHEN \(keepingCreatedAt) THEN push_subscription.created_at ELSE excluded.created_at END
            """)
    }

    /// Every push subscription of `owner`, in `order` (SQL; nil: as stored).
    static func pushSubscriptions(_ session: PostgresSession, owner: String, orderedBy order: String? = nil) async throws -> [StoredPushSubscription] {
        try await session.all("""
            SELECT \(unescaped: pushColumns) FROM push_subscription WHERE owner_id = \(owner)\(unescaped: order.map { " ORDER BY \($0)" } ?? "")
            """, as: PushRow.self).map(pushSubscription)
    }

    private typealias PushRow = (String, String, Data, Data, Double, String)
    private static let pushColumns = "id, endpoint, p256dh, auth, created_at, language"

    private static func pushSubscription(_ row: PushRow) -> StoredPushSubscription {
        StoredPushSubscription(id: row.0, endpoint: row.1, p256dh: row.2, auth: row.3, createdAt: row.4, language: row.5)
    }
}
