import Foundation

extension SchedulingStore {
    /// Registers (or replaces) a webhook of the owner's; deliveries are signed with `secret`.
    public func registerWebhook(id: String, url: String, secret: String, owner: String) async throws {
        guard !id.isEmpty else { throw SchedulingError.invalidArgument("id", .required, "a webhook needs an id") }
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
            throw SchedulingError.invalidArgument("url", .invalidFormat, "a webhook needs an http(s) URL")
        }
        guard secret.utf8.count >= 16 else { throw SchedulingError.invalidArgument("secret", .outOfRange, "the secret must be at least 16 bytes") }
        try await records.registerWebhook(id: id, url: url, secret: secret, owner: owner)
    }

    public func deleteWebhook(id: String, owner: String) async throws -> Bool {
        try await records.deleteWebhook(id: id, owner: owner)
    }

    /// Keeps a browser's push subscription (checked by ``WebPushSender``); a user has at most 50, so that a script
    /// cannot make one reminder fan out without end.
    /// - Throws: RESOURCE_EXHAUSTED beyond 50.
    public func registerPushSubscription(_ subscription: StoredPushSubscription, owner: String) async throws {
        let existing = try await records.pushSubscriptions(owner: owner)
        guard existing.count < Self.maxPushSubscriptions || existing.contains(where: { $0.id == subscription.id }) else {
            throw SchedulingError(.resourceExhausted, "at most \(Self.maxPushSubscriptions) browsers may have notifications on: turn one off first")
        }
        try await records.registerPushSubscription(subscription, owner: owner)
    }

    static let maxPushSubscriptions = 50

    public func deletePushSubscription(id: String, owner: String) async throws -> Bool {
        guard !id.isEmpty else { throw SchedulingError.invalidArgument("subscription_id", .required, "name the subscription to remove") }
        return try await records.deletePushSubscription(id: id, owner: owner)
    }

    public func pushSubscriptions(owner: String) async throws -> [StoredPushSubscription] {
        try await records.pushSubscriptions(owner: owner)
    }
}
