import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import PlantGuideWebPush
@testable import Scheduling
import Testing

/// Reminders by Web Push, on each backend: encrypted for the browser, signed with the server's VAPID key, once per
/// subscription, and the push service's answers acted on (410 removes, 429 waits as told).
@Suite("Reminders by Web Push to a fake push service", .cleansUp)
struct WebPushDeliveryTests: SchedulingSuite {
    static let start = Date(timeIntervalSince1970: 1_780_297_200)  // 2026-06-01 07:00 UTC
    let clock: TestClock
    let backend: SchedulingBackend
    let store: SchedulingStore
    static let key = VAPIDKey.generate(subject: "mailto:ops@plantguide.example")

    private func dispatcher(maxAttempts: Int = 8) -> ReminderDispatcher {
        let clock = self.clock
        let push = WebPushSender(key: Self.key, allowLoopback: true, appOrigin: "https://plants.example.org/")
        return ReminderDispatcher(records: backend.records, publisher: nil, push: push,
                                  allowLoopbackReceivers: true, maxAttempts: maxAttempts, initialBackoff: 2, now: { clock.now })
    }

    /// Monty watered weekly (a reminder today at 08:00 UTC) and the browser of `service` subscribed, for user a.
    private func prepare(_ service: FakePushService, name: String = "browser-1", language: String = "") async throws -> StoredPushSubscription {
        _ = try await store.putSchedule(.with {
            $0.plantID = "p1"
            $0.plantName = "Monty"
            $0.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly; $0.fertilizer.frequency = .none }
        }, owner: "a")
        let subscription = try WebPushSender(key: Self.key, allowLoopback: true)
            .subscription(endpoint: service.endpoint(name), p256dh: service.p256dh, auth: service.authText, language: language,
                          at: clock.now.timeIntervalSince1970)
        try await store.registerPushSubscription(subscription, owner: "a")
        return subscription
    }

    @Test("a due reminder reaches the browser once, decrypted, with a valid VAPID token, TTL, Urgency and Topic", arguments: TestBackend.allCases)
    func delivered(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let service = try FakePushService(vapidPublicKey: Self.key.publicKeyBase64URL)
        defer { service.stop() }
        _ = try await t.prepare(service)
        let dispatcher = t.dispatcher()
        #expect(try await dispatcher.runOnce() == (0, 0))
        t.clock.advance(seconds: 3_600)
        #expect(try await dispatcher.runOnce() == (1, 1))
        #expect(try await dispatcher.runOnce() == (0, 0))

        let message = try #require(service.messages.first)
        #expect(service.messages.count == 1)
        let json = try #require(message.json, "the body did not decrypt")
        // Declarative Web Push (RFC 8030's magic number, a notification a browser can show by itself) and the reminder
        // the app's service worker reads in its data.
        #expect(json["web_push"] as? Int == 8030 && json["mutable"] as? Bool == true)
        let notification = try #require(message.notification)
        #expect(notification["title"] as? String == "Water Monty" && notification["lang"] as? String == "en")
        #expect(notification["navigate"] as? String == "https://plants.example.org/plants/p1", "an absolute URL on the app's origin")
        let reminder = try #require(message.reminder)
        #expect(reminder["plantId"] as? String == "p1" && reminder["dueDate"] as? String == "2026-06-01")
        #expect(notification["tag"] as? String == reminder["taskId"] as? String, "one notification per task")
        #expect((reminder["reminderId"] as? String)?.hasPrefix("r:a:") == true && reminder["url"] as? String == "/plants/p1")
        #expect(message.vapidAudience == service.endpoint().components(separatedBy: "/push/")[0], "aud is the push service's origin")
        #expect(message.vapidSubject == "mailto:ops@plantguide.example")
        let expiry = try #require(message.vapidExpiry)
        #expect(expiry > Int(t.clock.now.timeIntervalSince1970) && expiry <= Int(t.clock.now.timeIntervalSince1970) + 86_400)
        #expect(message.contentEncoding == "aes128gcm" && message.ttl == "86400" && message.urgency == "normal")
        #expect(message.topic.map { $0.count <= 32 && !$0.isEmpty } == true)
        #expect(message.bodyBytes <= 4_096)
    }

    @Test("each browser's notification is worded in the language it subscribed in: Spanish, English, and English for one PlantGuide lacks",
          arguments: TestBackend.allCases)
    func language(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let service = try FakePushService(vapidPublicKey: Self.key.publicKeyBase64URL)
        defer { service.stop() }
        for (name, language) in [("es", "es-MX"), ("en", "en-GB"), ("fr", "fr"), ("none", "")] {
            _ = try await t.prepare(service, name: name, language: language)
        }
        t.clock.advance(seconds: 3_600)
        #expect(try await t.dispatcher().runOnce() == (1, 4))

        let titles = Dictionary(uniqueKeysWithValues: service.messages.map { (String($0.path.split(separator: "/").last ?? ""), $0.notification) })
        #expect(titles["es"]??["title"] as? String == "Regar Monty" && titles["es"]??["lang"] as? String == "es")
        for name in ["en", "fr", "none"] {
            #expect(titles[name]??["title"] as? String == "Water Monty" && titles[name]??["lang"] as? String == "en", "\(name)")
        }
        let bad = #expect(throws: RPCError.self) {
            try WebPushSender(key: Self.key).subscription(endpoint: "https://push.example/x", p256dh: service.p256dh, auth: service.authText,
                                                          language: "es\"><script>", at: 0)
        }
        #expect(bad?.details.fieldViolations.first?.field == "language")
    }

    @Test("410 Gone removes the subscription and its delivery stops; 429 with Retry-After waits that long; 500 backs off",
          arguments: TestBackend.allCases)
    func answers(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        // browser-1 is gone; browser-2 is throttled once (Retry-After 120), then fails once with 500, then takes it.
        let service = try FakePushService(vapidPublicKey: Self.key.publicKeyBase64URL) { index, path in
            if path.hasSuffix("browser-1") { return .reply(status: 410) }
            switch index {
            case 0: return .reply(status: 429, headers: ["Retry-After": "120"])
            case 1: return .reply(status: 500)
            default: return .reply(status: 201)
            }
        }
        defer { service.stop() }
        _ = try await t.prepare(service, name: "browser-1")
        _ = try await t.prepare(service, name: "browser-2")
        let dispatcher = t.dispatcher()
        t.clock.advance(seconds: 3_600)
        #expect(try await dispatcher.runOnce() == (1, 0))
        #expect(try await t.store.pushSubscriptions(owner: "a").count == 1, "the gone subscription was removed")

        t.clock.advance(seconds: 60)
        #expect(try await dispatcher.runOnce().delivered == 0, "Retry-After: 120 is not over after 60 s")
        t.clock.advance(seconds: 61)
        #expect(try await dispatcher.runOnce().delivered == 0, "the retry met a 500")
        t.clock.advance(seconds: 5)
        #expect(try await dispatcher.runOnce().delivered == 1, "after the back-off it went through")
        let paths = service.messages.map { $0.path.hasSuffix("browser-1") ? 1 : 2 }
        #expect(paths.sorted() == [1, 2, 2, 2], "the gone browser was tried once, the other three times: \(paths)")
        #expect(service.messages.allSatisfy { $0.vapidSubject != nil && $0.payload != nil })
    }

    @Test("a subscription is checked: https only (loopback http only when allowed), a P-256 key, a 16-byte secret; the same endpoint keeps one id")
    func subscriptionChecks() throws {
        let service = try FakePushService(vapidPublicKey: Self.key.publicKeyBase64URL)
        defer { service.stop() }
        let strict = WebPushSender(key: Self.key)
        let loose = WebPushSender(key: Self.key, allowLoopback: true)
        func field(_ body: () throws -> Any) -> String? {
            do {
                _ = try body()
                return nil
            } catch let error as RPCError {
                return error.details.fieldViolations.first?.field
            } catch {
                return "?"
            }
        }
        #expect(field { try strict.subscription(endpoint: service.endpoint(), p256dh: service.p256dh, auth: service.authText, at: 0) } == "endpoint")
        #expect(field { try loose.subscription(endpoint: "ftp://push.example/x", p256dh: service.p256dh, auth: service.authText, at: 0) } == "endpoint")
        #expect(field { try loose.subscription(endpoint: service.endpoint(), p256dh: "AAAA", auth: service.authText, at: 0) } == "p256dh")
        let notOnCurve = Base64URL.encode(Data([4] + [UInt8](repeating: 1, count: 64)))
        #expect(field { try loose.subscription(endpoint: service.endpoint(), p256dh: notOnCurve, auth: service.authText, at: 0) } == "p256dh")
        #expect(field { try loose.subscription(endpoint: service.endpoint(), p256dh: service.p256dh, auth: "c2hvcnQ", at: 0) } == "auth")
        let first = try strict.subscription(endpoint: "https://fcm.googleapis.com/fcm/send/abc", p256dh: service.p256dh, auth: service.authText, at: 0)
        let again = try strict.subscription(endpoint: "https://fcm.googleapis.com/fcm/send/abc", p256dh: service.p256dh, auth: service.authText, at: 9)
        #expect(first.id == again.id && first.id.count == 16)
    }

    @Test("a long plant name and note are shortened so that the message fits one 4 KB record")
    func payloadFits() throws {
        let reminder = Plantguide_Scheduling_V1_Reminder.with {
            $0.id = "r:a:t:1"
            $0.plantName = String(repeating: "Monstera ", count: 1_000)
            $0.task = .with { $0.id = "t"; $0.plantID = "p1"; $0.type = .watering; $0.note = String(repeating: "ü", count: 3_000) }
        }
        let payload = WebPushSender.payload(reminder, language: "", appOrigin: "https://plants.example.org")
        #expect(payload.count <= WebPushEncryption.maxPayloadBytes)
        let json = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        let notification = try #require(json["notification"] as? [String: Any])
        #expect((notification["title"] as? String)?.hasPrefix("Water Monstera") == true)
        #expect(notification["navigate"] as? String == "https://plants.example.org/plants/p1" && json["web_push"] as? Int == 8030)
        // Without the app's origin no navigate (it must be absolute): Safari then leaves the message to the service worker.
        let bare = try #require(try JSONSerialization.jsonObject(with: WebPushSender.payload(reminder, language: "")) as? [String: Any])
        #expect((bare["notification"] as? [String: Any])?["navigate"] == nil)
    }
}
