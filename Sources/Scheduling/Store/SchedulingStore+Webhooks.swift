import Foundation
import GRDB

extension SchedulingStore {
    /// Registers (or replaces) a webhook of the owner's; deliveries are signed with `secret`.
    public func registerWebhook(id: String, url: String, secret: String, owner: String) async throws {
        guard !id.isEmpty else { throw SchedulingError.invalidArgument("id", .required, "a webhook needs an id") }
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
            throw SchedulingError.invalidArgument("url", .invalidFormat, "a webhook needs an http(s) URL")
        }
        guard secret.utf8.count >= 16 else { throw SchedulingError.invalidArgument("secret", .outOfRange, "the secret must be at least 16 bytes") }
        try await writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO webhook VALUES (?, ?, ?, ?)", arguments: [owner, id, url, secret])
        }
    }

    public func deleteWebhook(id: String, owner: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM webhook WHERE ownerID = ? AND id = ?", arguments: [owner, id])
            return db.changesCount > 0
        }
    }
}
