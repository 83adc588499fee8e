import Foundation

/// Everything the gateway keeps of one user, row for row: what a copy moves between backends and compares.
public struct GatewayOwnerRecords: Sendable {
    public var userID: String
    /// The account (nil for a user with only pending work left, after their data was erased).
    public var account: (name: String, createdAt: Double)?
    public var tokens: [(id: String, hash: Data, createdAt: Double, revokedAt: Double?)] = []
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

/// A backend a copy reads from and compares: every user, and everything of one.
public protocol GatewayCopySource: Sendable {
    func owners() async throws -> [String]
    func everything(of userID: String) async throws -> GatewayOwnerRecords
}
