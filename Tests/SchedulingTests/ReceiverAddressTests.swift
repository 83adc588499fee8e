import Foundation
import PlantGuideCore
import PlantGuideHTTP
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import PlantGuideWebPush
@testable import Scheduling
import SwiftProtobuf
import Testing

/// Webhooks and push subscriptions are checked when they are given: one whose host is not a public address, in any
/// spelling, is INVALID_ARGUMENT and never stored; a delivery the outbound guard refuses later is dead at once; and
/// push services over https are trusted through a CA an operator names.
@Suite("Reminder receivers: addresses checked when registered, refusals final, an operator's CA", .cleansUp)
struct ReceiverAddressTests: SchedulingSuite {
    typealias Methods = Plantguide_Scheduling_V1_SchedulingService
    static let start = Date(timeIntervalSince1970: 1_780_297_200)  // 2026-06-01 07:00 UTC
    let clock: TestClock
    let backend: SchedulingBackend
    let store: SchedulingStore
    static let key = VAPIDKey.generate(subject: "mailto:ops@plantguide.example")

    /// Names the test resolves itself: one that points into the private network, one public.
    static let names = ["intranet.plantguide.test": ["10.1.2.3"], "push.plantguide.test": ["93.184.216.34"],
                        "mixed.plantguide.test": ["93.184.216.34", "192.168.0.7"]]

    /// Every spelling of a non-public address a user could give.
    static let nonPublic = [
        "https://10.0.0.1/push/x", "https://169.254.169.254/latest/meta-data", "https://127.0.0.1/push/x", "https://localhost/push/x",
        "https://[::1]/push/x", "https://[::ffff:127.0.0.1]/push/x", "https://[::ffff:10.0.0.1]/push/x", "https://2130706433/push/x",
        "https://127.1/push/x", "https://0x7f.0.0.1/push/x", "https://0177.0.0.1/push/x", "https://0.0.0.0/push/x",
        "https://[fe80::1]/push/x", "https://[fd00::1]/push/x", "https://100.64.0.1/push/x", "https://172.16.5.4/push/x",
        "https://192.168.1.1/push/x", "https://224.0.0.1/push/x", "https://240.0.0.1/push/x", "https://192.0.2.1/push/x",
        "https://intranet.plantguide.test/push/x", "https://mixed.plantguide.test/push/x", "https://no-such-host.invalid/push/x",
        "http://93.184.216.34/push/x", "ftp://93.184.216.34/push/x",
    ]

    private func router(allowLoopback: Bool) -> RPCRouter {
        var configuration = SchedulingConfiguration(dataDirectory: backend.folder)
        configuration.vapid = Self.key
        configuration.allowLoopbackReceivers = allowLoopback
        configuration.resolveHost = { host in
            if let fixed = Self.names[host] { return fixed }
            return try await HostResolver.addresses(of: host)
        }
        var router = RPCRouter()
        router.register(SchedulingRPCService(configuration: configuration, records: backend.records))
        return router
    }

    private func call<Request: SwiftProtobuf.Message, Response>(_ router: RPCRouter, _ method: RPCMethod<Request, Response>,
                                                               _ request: Request) async throws -> RPCRouter.Outcome {
        await router.invoke(method.path, payload: try request.serializedData(), metadata: [RPCServerContext.userIDKey: "a"])
    }

    private func register(_ router: RPCRouter, webhook url: String) async throws -> RPCRouter.Outcome {
        try await call(router, Methods.registerWebhook, .with { $0.id = "h"; $0.url = url; $0.secret = "0123456789abcdef" })
    }

    private func register(_ router: RPCRouter, push endpoint: String, browser: FakePushService) async throws -> RPCRouter.Outcome {
        try await call(router, Methods.registerPushSubscription, .with {
            $0.endpoint = endpoint
            $0.p256Dh = browser.p256dh
            $0.auth = browser.authText
        })
    }

    private func webhookCount() async throws -> Int? {
        try await backend.integer(sqlite: "SELECT COUNT(*) FROM webhook", postgres: "SELECT count(*)::int8 FROM webhook")
    }

    @Test("a webhook or push endpoint at a non-public address, in every spelling, is INVALID_ARGUMENT and not stored",
          arguments: TestBackend.allCases)
    func refusedWhenGiven(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        let browser = try FakePushService(vapidPublicKey: Self.key.publicKeyBase64URL)
        defer { browser.stop() }
        let router = t.router(allowLoopback: false)

        for url in Self.nonPublic {
            let webhook = try await t.register(router, webhook: url)
            #expect(webhook.error?.code == .invalidArgument && webhook.error?.details.fieldViolations.map(\.field) == ["url"],
                    "webhook \(url): \(String(describing: webhook.error))")
            let push = try await t.register(router, push: url, browser: browser)
            #expect(push.error?.code == .invalidArgument && push.error?.details.fieldViolations.map(\.field) == ["endpoint"],
                    "push \(url): \(String(describing: push.error))")
        }
        #expect(try await t.webhookCount() == 0)
        #expect(try await t.store.pushSubscriptions(owner: "a").isEmpty)

        // A public one is accepted (its name resolves to a public address).
        #expect(try await t.register(router, webhook: "https://push.plantguide.test/hook").error == nil)
        #expect(try await t.register(router, push: "https://push.plantguide.test/push/b1", browser: browser).error == nil)
        #expect(try await t.webhookCount() == 1)
        #expect(try await t.store.pushSubscriptions(owner: "a").count == 1)
    }

    @Test("with the loopback flag: loopback is accepted, over http too; private addresses and public http stay refused")
    func loopbackFlag() async throws {
        let t = try await Self(.sqlite)
        let browser = try FakePushService(vapidPublicKey: Self.key.publicKeyBase64URL)
        defer { browser.stop() }
        let router = t.router(allowLoopback: true)

        for url in ["https://127.0.0.1:9/h", "http://127.0.0.1:9/h", "http://localhost:9/h", "http://[::1]:9/h"] {
            #expect(try await t.register(router, webhook: url).error == nil, "\(url)")
        }
        #expect(try await t.register(router, push: browser.endpoint("b1"), browser: browser).error == nil)
        for url in ["https://10.0.0.1/h", "https://169.254.169.254/h", "http://93.184.216.34/h", "http://intranet.plantguide.test/h"] {
            #expect(try await t.register(router, webhook: url).error?.code == .invalidArgument, "\(url)")
        }
    }

    @Test("a delivery the outbound guard refuses (its name now resolves to loopback) is dead after one attempt, not retried",
          arguments: TestBackend.allCases)
    func guardRefusalIsFinal(backend kind: TestBackend) async throws {
        let t = try await Self(kind)
        _ = try await t.store.putSchedule(.with {
            $0.plantID = "p1"
            $0.plantName = "Monty"
            $0.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly; $0.fertilizer.frequency = .none }
        }, owner: "a")
        // Stored as registered when its name was public; localhost stands for a name that changed since.
        try await t.store.registerWebhook(id: "h", url: "https://localhost:9/h", secret: "0123456789abcdef", owner: "a")
        let clock = t.clock
        let dispatcher = ReminderDispatcher(records: t.backend.records, publisher: nil, allowLoopbackReceivers: false, maxAttempts: 8,
                                            initialBackoff: 2, now: { clock.now })
        t.clock.advance(seconds: 3_600)

        #expect(try await dispatcher.runOnce() == (1, 0))
        #expect(try await t.backend.integer(sqlite: "SELECT state FROM delivery", postgres: "SELECT state::int8 FROM delivery") == 2)
        #expect(try await t.backend.integer(sqlite: "SELECT attempts FROM delivery", postgres: "SELECT attempts::int8 FROM delivery") == 1)
        t.clock.advance(seconds: 7_200)
        #expect(try await dispatcher.runOnce() == (0, 0))
        #expect(try await t.backend.integer(sqlite: "SELECT attempts FROM delivery", postgres: "SELECT attempts::int8 FROM delivery") == 1)
    }

    @Test("a push service over https with a test-made CA: delivered with the CA added, refused without it or under another host name")
    func pushOverHTTPS() async throws {
        let authority = try await TestCertificateAuthority.make()
        let service = try FakePushService(vapidPublicKey: Self.key.publicKeyBase64URL)
        defer { service.stop() }
        let front = try await TLSFront(for: URL(string: service.endpoint())!, authority: authority)
        defer { front.stop() }
        let trusting = CurlHTTPClient(authorities: try CertificateAuthorities(addingFile: authority.caFile))

        for (http, host, delivered) in [(trusting, "localhost", true), (CurlHTTPClient(), "localhost", false), (trusting, "127.0.0.1", false)] {
            let t = try await Self(.sqlite)
            _ = try await t.store.putSchedule(.with {
                $0.plantID = "p1"
                $0.plantName = "Monty"
                $0.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly; $0.fertilizer.frequency = .none }
            }, owner: "a")
            let path = URL(string: service.endpoint("browser-\(host)-\(delivered)"))!.path
            let endpoint = front.url(host: host).appendingPathComponent(path).absoluteString
            let sender = WebPushSender(key: Self.key, allowLoopback: true)
            try await t.store.registerPushSubscription(try sender.subscription(endpoint: endpoint, p256dh: service.p256dh, auth: service.authText,
                                                                               at: t.clock.now.timeIntervalSince1970), owner: "a")
            let clock = t.clock
            let dispatcher = ReminderDispatcher(records: t.backend.records, publisher: nil, http: http, push: sender,
                                                allowLoopbackReceivers: true, now: { clock.now })
            t.clock.advance(seconds: 3_600)
            let sent = try await dispatcher.runOnce()
            #expect(sent.delivered == (delivered ? 1 : 0), "\(host), CA \(http === trusting)")
            #expect(service.messages.contains { $0.path == path } == delivered)
            if delivered {
                #expect(service.messages.first { $0.path == path }?.notification?["title"] as? String == "Water Monty")
            } else {
                let error = try await t.backend.data(sqlite: "SELECT CAST(lastError AS BLOB) FROM delivery WHERE state = 0",
                                                     postgres: "SELECT convert_to(last_error, 'UTF8') FROM delivery WHERE state = 0")
                #expect(error.count == 1 && String(decoding: error.first ?? Data(), as: UTF8.self).contains(host == "localhost" ? "certificate" : "127.0.0.1"),
                        "\(error.map { String(decoding: $0, as: UTF8.self) })")
            }
        }
    }
}
