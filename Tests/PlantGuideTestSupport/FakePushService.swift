import Crypto
import Foundation
import PlantGuideCore
import PlantGuideWebPush
import Synchronization

/// A Web Push service on 127.0.0.1, as a browser's push service behaves toward PlantGuide: it checks each
/// message's VAPID token against the server's public key, decrypts the body with the subscription's private key
/// and auth secret (the browser's half, which the test holds), and records what arrived. `answer` decides the
/// status of each message (201 by default; 410 for a subscription that is gone, 429 with Retry-After...).
public final class FakePushService: Sendable {
    /// One message as the push service saw it.
    public struct Message: Sendable {
        /// The decrypted payload; nil when it would not decrypt.
        public var payload: Data?
        /// The VAPID token's claims when its signature checked out with the expected key; nil otherwise.
        public var vapidAudience: String?
        public var vapidSubject: String?
        public var vapidExpiry: Int?
        public var ttl: String?
        public var urgency: String?
        public var topic: String?
        public var contentEncoding: String?
        public var bodyBytes: Int
        public var path: String

        /// The payload as JSON.
        public var json: [String: Any]? { payload.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any] }
        /// The notification the payload carries (Declarative Web Push's `notification`: title, body, lang, tag).
        public var notification: [String: Any]? { json?["notification"] as? [String: Any] }
        /// The reminder itself, as the app's service worker reads it (the notification's `data`).
        public var reminder: [String: Any]? { notification?["data"] as? [String: Any] }
    }

    /// The browser's key pair and auth secret, as PushManager.subscribe makes them.
    public let browserKey = P256.KeyAgreement.PrivateKey()
    public let auth = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
    private let server: FakeHTTPServer
    private let received = Received()

    private final class Received: Sendable {
        let messages = Mutex<[Message]>([])
    }

    /// - Parameters:
    ///   - vapidPublicKey: the server's VAPID public key (base64url) the tokens must verify with.
    ///   - answer: the reply to the `n`th message (0-based) of a path.
    public init(vapidPublicKey: String, answer: @escaping @Sendable (_ index: Int, _ path: String) -> FakeHTTPServer.Response = { _, _ in
        .reply(status: 201)
    }) throws {
        let key = browserKey
        let auth = self.auth
        let received = self.received
        server = try FakeHTTPServer { request in
            let claims = request.headers["authorization"].flatMap { VAPIDKey.verifiedClaims(authorization: $0, publicKey: vapidPublicKey) }
            let message = Message(
                payload: try? WebPushEncryption.decrypt(request.body, receiverKey: key, auth: auth),
                vapidAudience: claims?["aud"] as? String, vapidSubject: claims?["sub"] as? String, vapidExpiry: claims?["exp"] as? Int,
                ttl: request.headers["ttl"], urgency: request.headers["urgency"], topic: request.headers["topic"],
                contentEncoding: request.headers["content-encoding"], bodyBytes: request.body.count, path: request.path)
            let index = received.messages.withLock { messages in
                messages.append(message)
                return messages.filter { $0.path == request.path }.count - 1
            }
            return answer(index, request.path)
        }
    }

    /// The endpoint of subscription `name` (its own path on this service).
    public func endpoint(_ name: String = "browser-1") -> String { server.baseURL.appendingPathComponent("push/\(name)").absoluteString }
    /// The subscription's keys as the browser's PushSubscription.toJSON() gives them.
    public var p256dh: String { Base64URL.encode(browserKey.publicKey.x963Representation) }
    public var authText: String { Base64URL.encode(auth) }

    public var messages: [Message] { received.messages.withLock { $0 } }

    /// Waits until `condition` holds for the messages received, or `timeout` passes.
    public func wait(timeout: Duration, until condition: @escaping @Sendable ([Message]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(messages) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition(messages)
    }

    public func stop() { server.stop() }
}
