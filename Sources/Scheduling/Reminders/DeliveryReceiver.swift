/// Where one delivery of a reminder goes, one delivery row each. Stored as text in the delivery table: "pub",
/// "webhook:ID" or "push:ID".
public enum DeliveryReceiver: Sendable, Hashable {
    /// The PUB stream of reminders.
    case stream
    /// A webhook of the reminder's owner.
    case webhook(id: String)
    /// A browser subscribed by Web Push.
    case push(subscriptionID: String)

    /// The receiver a stored text names; nil for text no version of PlantGuide wrote.
    public init?(stored: String) {
        if stored == "pub" {
            self = .stream
        } else if stored.hasPrefix("webhook:") {
            self = .webhook(id: String(stored.dropFirst("webhook:".count)))
        } else if stored.hasPrefix("push:") {
            self = .push(subscriptionID: String(stored.dropFirst("push:".count)))
        } else {
            return nil
        }
    }

    /// How it is stored.
    public var stored: String {
        switch self {
        case .stream: "pub"
        case .webhook(let id): "webhook:" + id
        case .push(let subscriptionID): "push:" + subscriptionID
        }
    }
}

/// What became of a delivery, as stored (an integer column).
public enum DeliveryState: Int, Sendable {
    /// Not yet made, or to be tried again at its next attempt time.
    case pending = 0
    case delivered = 1
    /// Out of attempts, or refused for good: never tried again.
    case dead = 2
    /// Not sent: its reminder type or plant was turned off, or its receiver is gone.
    case cancelled = 3
}
