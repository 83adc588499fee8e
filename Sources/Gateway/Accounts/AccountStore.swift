import CSodium
import Foundation

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

    private let records: any GatewayRecords
    let now: @Sendable () -> Date

    public init(records: any GatewayRecords, now: @escaping @Sendable () -> Date = Date.init) {
        self.records = records
        self.now = now
    }

    /// Creates a user named `name` (1–100 characters of letters, digits, '.', '_', '-', '@') with a first token.
    /// - Throws: `AccountError` when the name is taken or malformed.
    public func addUser(name: String) async throws -> IssuedToken {
        if let problem = Self.problem(withName: name) { throw AccountError(problem) }
        let userID = "u_" + Self.randomHex(bytes: 8)
        let (token, secret) = newToken()
        try await records.addUser(id: userID, name: name, token: token)
        return IssuedToken(userID: userID, tokenID: token.id, secret: secret)
    }

    /// A further token for an existing user (a second device, say).
    public func addToken(userName: String) async throws -> IssuedToken {
        let (token, secret) = newToken()
        let userID = try await records.addToken(userName: userName, token: token)
        return IssuedToken(userID: userID, tokenID: token.id, secret: secret)
    }

    public func users() async throws -> [User] {
        try await records.users()
    }

    /// Revokes a token by its id (the part after "pg_" and before the second "_", as `users add` printed it).
    /// - Returns: whether an active token had that id.
    public func revoke(tokenID: String) async throws -> Bool {
        try await records.revoke(tokenID: tokenID, at: now().timeIntervalSince1970)
    }

    /// Why `name` cannot name a user, or nil when it can.
    static func problem(withName name: String) -> String? {
        guard (1...100).contains(name.count), name.allSatisfy({ $0.isLetter || $0.isNumber || "._-@".contains($0) }) else {
            return "a user name is 1 to 100 letters, digits, '.', '_', '-' or '@'"
        }
        return nil
    }

    /// Whether `token` could be one of ours at all ("pg_…", at most 200 bytes): anything else is refused unread.
    static func isWellFormed(token: String) -> Bool {
        token.hasPrefix("pg_") && token.utf8.count <= 200
    }

    /// How many revocations there ever were: it only grows, so a change means a revocation since. One row, read
    /// in constant time however many tokens there are.
    func revocationCount() async throws -> Int {
        try await records.revocationCount()
    }

    /// The owner and lifetime of a token's SHA-256, or nil when it is unknown or revoked. Callers go through
    /// ``TokenCache``, which hashes the token, spares most calls this read, and refuses expired tokens.
    func owner(ofTokenHash hash: Data) async throws -> TokenOwner? {
        try await records.owner(ofTokenHash: hash)
    }

    /// Notes a use of the token `id` now, which moves its idle expiry.
    func touchToken(id: String) async throws {
        try await records.touchToken(id: id, at: now().timeIntervalSince1970)
    }

    /// A new secret calendar path for the user, replacing any earlier one (only its hash is kept).
    public func newCalendarLink(userID: String) async throws -> String {
        let secret = Self.randomHex(bytes: 24)
        try await records.setCalendarLink(userID: userID, hash: Self.sha256(secret), at: now().timeIntervalSince1970)
        return "/v1/calendar/\(secret).ics"
    }

    /// - Returns: whether the user had a link.
    public func revokeCalendarLink(userID: String) async throws -> Bool {
        try await records.deleteCalendarLink(userID: userID)
    }

    /// The user a calendar secret belongs to, or nil.
    public func owner(ofCalendarSecret secret: String) async throws -> String? {
        guard secret.count == 48, secret.allSatisfy(\.isHexDigit) else { return nil }
        return try await records.owner(ofCalendarHash: Self.sha256(secret))
    }

    /// An invitation to sign up, as `invites list` shows it (the code itself is shown only when made).
    public struct Invitation: Sendable {
        public var id: String
        public var createdAt: Double
        public var expiresAt: Double
        /// The name of the user who signed up with it.
        public var usedBy: String?
        public var usedAt: Double?
    }

    /// Makes `count` invitation codes usable for `days` days and returns them, shown only now ("inv_<id>_<secret>";
    /// only hashes are kept). For `--signup invite`.
    public func addInvitations(count: Int, days: Double) async throws -> [String] {
        let time = now().timeIntervalSince1970
        let made = (0..<count).map { _ -> (id: String, code: String) in
            let id = Self.randomHex(bytes: 6)
            return (id, "inv_\(id)_\(Self.randomHex(bytes: 16))")
        }
        try await records.addInvitations(made.map { ($0.id, Self.sha256($0.code)) }, createdAt: time, expiresAt: time + days * 86_400)
        return made.map(\.code)
    }

    public func invitations() async throws -> [Invitation] {
        try await records.invitations()
    }

    /// Withdraws an unused invitation by its id or code; false when there is no unused one.
    public func deleteInvitation(_ idOrCode: String) async throws -> Bool {
        try await records.deleteInvitation(id: Self.id(ofSecret: idOrCode, prefix: "inv_") ?? idOrCode)
    }

    /// The id inside a secret this store hands out, "<prefix><id>_<secret>" (a token "pg_…", an invitation
    /// "inv_…"); nil for anything else.
    public static func id(ofSecret text: String, prefix: String) -> String? {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard text.hasPrefix(prefix), parts.count == 3 else { return nil }
        return String(parts[1])
    }

    /// A new token to store and the secret to hand out once; it expires as `lifetime` says (nil: an operator's token
    /// for a program, which never does).
    func newToken(lifetime: SessionLifetime? = nil) -> (StoredToken, String) {
        let tokenID = Self.randomHex(bytes: 6)
        let secret = "pg_\(tokenID)_\(Self.randomHex(bytes: 24))"
        let time = now().timeIntervalSince1970
        return (StoredToken(id: tokenID, hash: Self.sha256(secret), createdAt: time,
                            expiresAt: lifetime.map { time + $0.absolute }, idleTimeout: lifetime?.idle), secret)
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
