import CSodium
import Foundation
import GRDB

/// The gateway's users and their API tokens. A token is shown once, when it is made; only its SHA-256 is stored,
/// so a copy of the database gives no way in.
public struct AccountStore: Sendable {
    /// A user as `users list` shows them.
    public struct User: Sendable, Equatable {
        public var id: String
        public var name: String
        public var createdAt: Date
        /// Tokens not revoked.
        public var activeTokens: Int
    }

    /// A new token: the secret to hand to the person (never stored) and its id (to revoke it by).
    public struct IssuedToken: Sendable {
        public var userID: String
        public var tokenID: String
        public var secret: String
    }

    private let writer: any DatabaseWriter
    private let now: @Sendable () -> Date

    public init(writer: any DatabaseWriter, now: @escaping @Sendable () -> Date = Date.init) {
        self.writer = writer
        self.now = now
    }

    /// Creates a user named `name` (1–100 characters of letters, digits, '.', '_', '-', '@') with a first token.
    /// - Throws: `AccountError` when the name is taken or malformed.
    public func addUser(name: String) async throws -> IssuedToken {
        guard (1...100).contains(name.count), name.allSatisfy({ $0.isLetter || $0.isNumber || "._-@".contains($0) }) else {
            throw AccountError("a user name is 1 to 100 letters, digits, '.', '_', '-' or '@'")
        }
        let userID = "u_" + Self.randomHex(bytes: 8)
        let time = now().timeIntervalSince1970
        return try await writer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE name = ?", arguments: [name]) == nil else {
                throw AccountError("a user named '\(name)' exists already")
            }
            try db.execute(sql: "INSERT INTO user (id, name, createdAt) VALUES (?, ?, ?)", arguments: [userID, name, time])
            return try Self.issue(db, userID: userID, at: time)
        }
    }

    /// A further token for an existing user (a second device, say).
    public func addToken(userName: String) async throws -> IssuedToken {
        let time = now().timeIntervalSince1970
        return try await writer.write { db in
            guard let userID = try String.fetchOne(db, sql: "SELECT id FROM user WHERE name = ?", arguments: [userName]) else {
                throw AccountError("no user named '\(userName)'")
            }
            return try Self.issue(db, userID: userID, at: time)
        }
    }

    public func users() async throws -> [User] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT user.id, user.name, user.createdAt,
                       (SELECT COUNT(*) FROM token WHERE token.userID = user.id AND revokedAt IS NULL) AS active
                FROM user ORDER BY user.name
                """).map { row in
                User(id: row["id"], name: row["name"], createdAt: Date(timeIntervalSince1970: row["createdAt"]), activeTokens: row["active"])
            }
        }
    }

    /// Revokes a token by its id (the part after "pg_" and before the second "_", as `users add` printed it).
    /// - Returns: whether an active token had that id.
    public func revoke(tokenID: String) async throws -> Bool {
        let time = now().timeIntervalSince1970
        return try await writer.write { db in
            try db.execute(sql: "UPDATE token SET revokedAt = ? WHERE id = ? AND revokedAt IS NULL", arguments: [time, tokenID])
            guard db.changesCount > 0 else { return false }
            try db.execute(sql: "UPDATE tokenRevocations SET count = count + 1 WHERE id = 1")
            return true
        }
    }

    /// Whether `token` could be one of ours at all ("pg_…", at most 200 bytes): anything else is refused unread.
    static func isWellFormed(token: String) -> Bool {
        token.hasPrefix("pg_") && token.utf8.count <= 200
    }

    /// How many revocations there ever were: it only grows, so a change means a revocation since. One row, read
    /// in constant time however many tokens there are.
    func revocationCount() async throws -> Int {
        try await writer.read { db in try Int.fetchOne(db, sql: "SELECT count FROM tokenRevocations WHERE id = 1") ?? 0 }
    }

    /// The user and token id of a token's SHA-256, or nil when it is unknown or revoked. Callers go through
    /// ``TokenCache``, which hashes the token and spares most calls this read.
    func owner(ofTokenHash hash: Data) async throws -> (userID: String, tokenID: String)? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT userID, id FROM token WHERE hash = ? AND revokedAt IS NULL", arguments: [hash])
                .map { ($0["userID"], $0["id"]) }
        }
    }

    /// A new secret calendar path for the user, replacing any earlier one (only its hash is kept).
    public func newCalendarLink(userID: String) async throws -> String {
        let secret = Self.randomHex(bytes: 24)
        let time = now().timeIntervalSince1970
        try await writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO calendarLink (userID, hash, createdAt) VALUES (?, ?, ?)",
                           arguments: [userID, Self.sha256(secret), time])
        }
        return "/v1/calendar/\(secret).ics"
    }

    /// - Returns: whether the user had a link.
    public func revokeCalendarLink(userID: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM calendarLink WHERE userID = ?", arguments: [userID])
            return db.changesCount > 0
        }
    }

    /// The user a calendar secret belongs to, or nil.
    public func owner(ofCalendarSecret secret: String) async throws -> String? {
        guard secret.count == 48, secret.allSatisfy(\.isHexDigit) else { return nil }
        let hash = Self.sha256(secret)
        return try await writer.read { db in
            try String.fetchOne(db, sql: "SELECT userID FROM calendarLink WHERE hash = ?", arguments: [hash])
        }
    }

    private static func issue(_ db: Database, userID: String, at time: Double) throws -> IssuedToken {
        let tokenID = randomHex(bytes: 6)
        let secret = "pg_\(tokenID)_\(randomHex(bytes: 24))"
        try db.execute(sql: "INSERT INTO token (id, userID, hash, createdAt) VALUES (?, ?, ?, ?)",
                       arguments: [tokenID, userID, sha256(secret), time])
        return IssuedToken(userID: userID, tokenID: tokenID, secret: secret)
    }

    static func sha256(_ text: String) -> Data {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        let bytes = Array(text.utf8)
        crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return Data(digest)
    }

    private static let sodiumReady = sodium_init() >= 0

    static func randomHex(bytes count: Int) -> String {
        precondition(sodiumReady, "libsodium failed to initialise")
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// A refused account change, in words for the command line.
public struct AccountError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
