import Foundation

/// Everything the gateway keeps of one user, row for row: what a copy moves between backends and compares.
public struct GatewayOwnerRecords: Sendable {
    public var userID: String
    /// The account (nil for a user with only pending work left, after their data was erased).
    public var account: (name: String, createdAt: Double)?
    /// The account's password hash, when it has one (people who signed up themselves).
    public var password: (hash: String, updatedAt: Double)?
    public var tokens: [CopiedToken] = []
    public var passkeys: [StoredPasskey] = []
    public var calendarLink: (hash: Data, createdAt: Double)?
    /// Shares this user gave.
    public var shares: [(memberID: String, readWrite: Bool, createdAt: Double)] = []
    public var identificationSettings: Data?
    public var pendingDeletions: [(plantID: String, since: Double)] = []
    public var pendingCare: [PendingWork.CareLookup] = []

    public init(userID: String) {
        self.userID = userID
    }
}

/// A token as a copy moves it: a session's expiry goes with it.
public struct CopiedToken: Sendable {
    public var id: String
    public var hash: Data
    public var createdAt: Double
    public var revokedAt: Double?
    public var expiresAt: Double?
    public var idleTimeout: Double?
    public var lastUsedAt: Double?
}

/// A backend a copy reads from and compares: every user, and everything of one.
public protocol GatewayCopySource: Sendable {
    func owners() async throws -> [String]
    func everything(of userID: String) async throws -> GatewayOwnerRecords
}
