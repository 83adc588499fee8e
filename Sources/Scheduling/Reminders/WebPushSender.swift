import Foundation
import PlantGuideCore
import PlantGuideHTTP
import PlantGuideProtos
import PlantGuideRPCCore
import PlantGuideWebPush

/// Sends reminders to browsers by Web Push: the payload encrypted for the subscription (RFC 8291), the request
/// signed with the server's VAPID key (RFC 8292), with `TTL`, `Urgency` and `Topic` (RFC 8030) set.
///
/// Push services are URLs a browser gave, so they go through the outbound guard: https only, public addresses
/// only (``OutboundAddresses/publicOnly``), unless `allowLoopback` (tests: a fake push service on 127.0.0.1 over
/// plain http).
public struct WebPushSender: Sendable {
    public let key: VAPIDKey
    public let allowLoopback: Bool
    /// The web app's origin as browsers reach it (https://plants.example.org): the declarative form's `navigate`,
    /// which must be an absolute URL. Without it the payload carries no `navigate`, and browsers that read the
    /// declarative form (Safari) hand the message to the app's service worker instead.
    public let appOrigin: String?

    public init(key: VAPIDKey, allowLoopback: Bool = false, appOrigin: String? = nil) {
        self.key = key
        self.allowLoopback = allowLoopback
        self.appOrigin = appOrigin?.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    }

    /// How long a push service keeps a reminder for a browser that is offline: a day, after which the task shows
    /// as overdue in the app anyway.
    static let timeToLive = 86_400

    /// What a push service answered, as the dispatcher acts on it.
    enum Outcome: Equatable {
        case delivered
        /// 404 or 410: the browser unsubscribed; the subscription is removed.
        case gone
        /// 429 or 5xx: tried again later, after `retryAfter` seconds when the service said.
        case retry(status: Int, retryAfter: Double?)
        /// Any other 4xx: the message itself was refused (too large, bad VAPID): retried with back-off, then dead.
        case refused(status: Int)
    }

    /// A subscription from a browser's keys, checked: an https endpoint (or loopback http when allowed), a P-256
    /// point and a 16-byte secret. Its id is derived from the endpoint, so the same browser subscribing again
    /// replaces its row.
    /// - Throws: INVALID_ARGUMENT naming the field.
    func subscription(endpoint: String, p256dh: String, auth: String, language: String = "", at time: Double) throws -> StoredPushSubscription {
        guard let url = URL(string: endpoint), let host = url.host, !host.isEmpty else {
            throw RPCError.invalidArgument("endpoint", .invalidFormat, "the endpoint is not a URL")
        }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        guard url.scheme == "https" || (allowLoopback && loopback && url.scheme == "http") else {
            throw RPCError.invalidArgument("endpoint", .invalidFormat, "a push service's endpoint is an https URL")
        }
        guard let key = Base64URL.decode(p256dh), key.count == 65, key.first == 4 else {
            throw RPCError.invalidArgument("p256dh", .invalidFormat, "p256dh is the browser's uncompressed P-256 key, 65 bytes in base64url")
        }
        guard let secret = Base64URL.decode(auth), secret.count == 16 else {
            throw RPCError.invalidArgument("auth", .invalidFormat, "auth is the browser's 16-byte secret in base64url")
        }
        // A key that is not a curve point is caught now, not at the first reminder.
        guard (try? WebPushEncryption.encrypt(Data(), p256dh: key, auth: secret)) != nil else {
            throw RPCError.invalidArgument("p256dh", .invalidFormat, "p256dh is not a point of P-256")
        }
        guard language.count <= 35, language.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            throw RPCError.invalidArgument("language", .invalidFormat, "language is a BCP 47 tag such as \"es\" or \"en-GB\"")
        }
        return StoredPushSubscription(id: PushIdentifiers.subscriptionID(endpoint: endpoint), endpoint: endpoint, p256dh: key, auth: secret,
                                      createdAt: time, language: language)
    }

    /// The notification a reminder becomes, in the one form that both kinds of browser read: Declarative Web Push
    /// (`web_push: 8030`, a `notification` that Safari 18.4+ shows by itself, `mutable` so that the app's service
    /// worker may still show it, with its Done and Tomorrow buttons) and what the app's service worker reads (the
    /// same `notification`, the reminder in its `data`). Worded in `language` (the subscription's;
    /// ``PlantGuideCore/TaskWords``, as the app words tasks) and kept under the 3,993 bytes one encrypted record
    /// holds (a long plant name or note is shortened).
    static func payload(_ reminder: Plantguide_Scheduling_V1_Reminder, language: String, appOrigin: String? = nil) -> Data {
        let task = reminder.task
        let language = TaskWords.language(for: language)
        let phrase = TaskWords.phrase(TaskRows.kind(task.type.rawValue), language: language)
        let path = "/plants/\(task.plantID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? task.plantID)"
        let data: [String: Any] = [
            "reminderId": reminder.id, "taskId": task.id, "plantId": task.plantID, "type": "\(task.type)", "dueDate": task.dueDate, "url": path,
        ]
        func message(limit: Int?) -> Data {
            let title = "\(phrase) \(reminder.plantName)"
            var notification: [String: Any] = [
                "title": limit.map { String(title.prefix($0)) } ?? title, "body": limit.map { String(task.note.prefix($0)) } ?? task.note,
                "lang": language, "tag": task.id, "data": data,
            ]
            if let appOrigin { notification["navigate"] = appOrigin + path }
            let fields: [String: Any] = ["web_push": 8030, "notification": notification, "mutable": true]
            return (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        }
        var payload = message(limit: nil)
        var limit = 512
        while payload.count > WebPushEncryption.maxPayloadBytes, limit > 8 {
            payload = message(limit: limit)
            limit /= 2
        }
        return payload
    }

    /// The `Topic` header: one per task, so a push service holding an undelivered reminder of the same task
    /// replaces it instead of queueing both (at most 32 base64url characters).
    static func topic(taskID: String, owner: String) -> String {
        PushIdentifiers.topic("\(owner)\u{0}\(taskID)")
    }

    /// Sends `reminder` to `subscription` and reads the push service's answer.
    func send(_ reminder: Plantguide_Scheduling_V1_Reminder, to subscription: StoredPushSubscription, owner: String,
              http: any HTTPClient, timeout: Duration, now: Date) async throws -> Outcome {
        guard let endpoint = URL(string: subscription.endpoint) else { return .gone }
        let body = try WebPushEncryption.encrypt(Self.payload(reminder, language: subscription.language, appOrigin: appOrigin), p256dh: subscription.p256dh,
                                                 auth: subscription.auth)
        let request = HTTPRequest(method: "POST", url: endpoint, headers: [
            "Authorization": try key.authorization(for: endpoint, now: now),
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "TTL": String(Self.timeToLive),
            "Urgency": "normal",
            "Topic": Self.topic(taskID: reminder.task.id, owner: owner),
        ], body: body, addresses: .receivers(allowLoopback: allowLoopback))
        let response = try await http.send(request, timeout: timeout)
        switch response.status {
        case 200..<300: return .delivered
        case 404, 410: return .gone
        case 429, 500...: return .retry(status: response.status, retryAfter: response.headers["retry-after"].flatMap(Self.seconds))
        default: return .refused(status: response.status)
        }
    }

    /// Seconds from a Retry-After value: a number of seconds or an HTTP date.
    static func seconds(retryAfter value: String) -> Double? {
        if let seconds = Double(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 { return seconds }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return format.date(from: value).map { max(0, $0.timeIntervalSinceNow) }
    }
}
