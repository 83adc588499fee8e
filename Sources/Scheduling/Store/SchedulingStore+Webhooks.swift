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
}
