import Foundation
import PlantGuideProtos
import PlantGuideRPC
import ServiceLifecycle
import Synchronization

/// Relays the scheduling service's reminders to the gateway's live streams (`GET /v1/reminders/stream`).
///
/// One SUB socket, connected to every scheduling instance's PUB endpoint, takes all users' reminders (the gateway
/// serves them all); each goes to the streams open for its user, found by the reminder's `user_id`. Streams also
/// get a keep-alive now and then, so that a stream with nothing to say still notices a client that went away.
/// A Service: on graceful shutdown it ends every stream, so that the HTTP front can drain.
public final class ReminderRelay: Service, Sendable {
    public typealias Reminder = Plantguide_Scheduling_V1_Reminder

    /// What a stream receives.
    enum Event: Sendable {
        case reminder(Reminder)
        case keepAlive
    }

    private final class Listeners: Sendable {
        let byUser = Mutex<[String: [UUID: AsyncStream<Event>.Continuation]]>([:])
        let lastKeepAlive = Mutex(ContinuousClock.now)

        func send(_ event: Event, to userID: String) {
            byUser.withLock { listeners in
                for continuation in listeners[userID, default: [:]].values { continuation.yield(event) }
            }
        }

        func keepAliveIfDue(every interval: Duration) {
            let now = ContinuousClock.now
            let due = lastKeepAlive.withLock { last in
                guard last.duration(to: now) >= interval else { return false }
                last = now
                return true
            }
            guard due else { return }
            byUser.withLock { listeners in
                for continuation in listeners.values.flatMap(\.values) { continuation.yield(.keepAlive) }
            }
        }
    }

    private let listeners = Listeners()
    private let subscriber: Subscriber

    /// Subscribes to the reminders published at `publishers` (scheduling's --reminders-bind: an endpoint, a list,
    /// or a DNS name naming every scheduling replica), with `curve` when scheduling requires it.
    /// - Throws: ``RPCError`` when an endpoint is malformed.
    public init(publishers: RPCTarget, curve: CurveClientSecurity? = nil, keepAliveInterval: Duration = .seconds(15)) throws {
        let listeners = self.listeners
        subscriber = try Subscriber(
            connectingTo: publishers, topicPrefix: "reminders.", curve: curve, tick: { listeners.keepAliveIfDue(every: keepAliveInterval) },
            deliver: { _, payload in
                guard let reminder = try? Reminder(serializedBytes: payload), !reminder.userID.isEmpty else { return }
                listeners.send(.reminder(reminder), to: reminder.userID)
            })
    }

    /// The events for `userID` from now on, until the consumer stops iterating or the relay shuts down. A consumer
    /// that falls 100 events behind loses the oldest.
    func events(for userID: String) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(100))
        let key = UUID()
        let listeners = self.listeners
        listeners.byUser.withLock { $0[userID, default: [:]][key] = continuation }
        continuation.onTermination = { _ in
            listeners.byUser.withLock { byUser in
                byUser[userID]?[key] = nil
                if byUser[userID]?.isEmpty == true { byUser[userID] = nil }
            }
        }
        return stream
    }

    /// Streams open now, for /metrics and tests.
    var openStreams: Int { listeners.byUser.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    public func run() async throws {
        try? await gracefulShutdown()
        close()
    }

    /// Ends every stream and stops receiving.
    public func close() {
        subscriber.close()
        let open = listeners.byUser.withLock { byUser in
            defer { byUser.removeAll() }
            return byUser.values.flatMap(\.values)
        }
        for continuation in open { continuation.finish() }
    }
}
