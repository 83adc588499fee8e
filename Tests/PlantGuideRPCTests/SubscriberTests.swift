import Foundation
import PlantGuideRPC
import PlantGuideTestSupport
import Synchronization
import Testing

/// The SUB side of an event stream, on real ZeroMQ sockets: fixed endpoints and DNS names.
@Suite("Subscriber")
struct SubscriberTests {
    /// What a subscriber delivered: "topic payload" lines.
    final class Received: Sendable {
        let lines = Mutex<[String]>([])
        var isEmpty: Bool { lines.withLock { $0.isEmpty } }
    }

    /// Publishes to `topic` until `received` holds something (PUB/SUB joins late); whether it did within 10 s.
    private static func publishUntilReceived(_ publisher: Publisher, topic: String, _ received: Received) async throws -> Bool {
        for _ in 0..<200 {
            publisher.publish(topic: topic, payload: Array("hello".utf8))
            try await Task.sleep(for: .milliseconds(50))
            if !received.isEmpty { return true }
        }
        return false
    }

    private static func subscriber(_ target: String, into received: Received) throws -> Subscriber {
        try Subscriber(connectingTo: try RPCTarget(parsing: target), topicPrefix: "reminders.", refreshInterval: .milliseconds(200)) { topic, payload in
            received.lines.withLock { $0.append("\(topic) \(String(decoding: payload, as: UTF8.self))") }
        }
    }

    @Test("a list of endpoints: every publisher's messages under the prefix arrive, others do not")
    func endpoints() async throws {
        let (first, second) = (try Publisher(bind: "tcp://127.0.0.1:0"), try Publisher(bind: "tcp://127.0.0.1:0"))
        let received = Received()
        let subscriber = try Self.subscriber("\(first.endpoint),\(second.endpoint)", into: received)
        defer { subscriber.close() }
        #expect(try await Self.publishUntilReceived(first, topic: "reminders.a", received))
        received.lines.withLock { $0.removeAll() }
        second.publish(topic: "other.b", payload: Array("no".utf8))
        #expect(try await Self.publishUntilReceived(second, topic: "reminders.b", received))
        #expect(received.lines.withLock { $0.allSatisfy { $0 == "reminders.b hello" } })
    }

    @Test("a DNS name: its addresses are connected; a name that does not resolve yet is not refused (looked up again later)")
    func dnsName() async throws {
        let port = try FreePort.next()
        let received = Received()
        let unresolved = try Self.subscriber("dns:///no-such-publisher.invalid:\(port)", into: Received())
        unresolved.close()

        let subscriber = try Self.subscriber("dns:///localhost:\(port)", into: received)
        defer { subscriber.close() }
        // Bound after the subscriber resolved the name: ZeroMQ connects once it listens.
        let publisher = try Publisher(bind: "tcp://127.0.0.1:\(port)")
        #expect(try await Self.publishUntilReceived(publisher, topic: "reminders.a", received))
    }
}
