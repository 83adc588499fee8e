import Foundation

/// Everything of one user in scheduling, row for row as stored: what a copy moves between backends and compares.
public struct SchedulingOwnerRecords: Sendable {
    public var owner: String
    /// The stored Preferences message, if the user set any.
    public var preferences: Data?
    /// Schedules by plant id, as stored messages.
    public var schedules: [(plantID: String, message: Data)] = []
    public var tasks: [StoredTask] = []
    public var webhooks: [(id: String, url: String, secret: String)] = []
    public var pushSubscriptions: [StoredPushSubscription] = []
    public var reminders: [(id: String, taskID: String, message: Data, createdAt: Double)] = []
    public var deliveries: [StoredDelivery] = []

    public init(owner: String) {
        self.owner = owner
    }

    /// A task's row: every column, times as seconds and days as day numbers.
    public struct StoredTask: Sendable {
        public var id: String
        public var plantID: String
        public var kind: Int
        public var state: Int
        public var dueDay: Int
        public var remindAt: Double
        public var completedAt: Double?
        public var snoozedUntilDay: Int?
        public var recurring: Bool
        public var note: String
        public var remindedAt: Double?
    }

    /// A delivery's row.
    public struct StoredDelivery: Sendable {
        public var reminderID: String
        public var receiver: String
        public var state: Int
        public var attempts: Int
        public var nextAttemptAt: Double
        public var lastError: String
    }
}

/// A backend a copy reads from and compares: every user, and everything of one.
public protocol SchedulingCopySource: Sendable {
    func owners() async throws -> [String]
    func everything(of owner: String) async throws -> SchedulingOwnerRecords
}
