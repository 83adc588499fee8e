import Foundation
import PlantGuideCore
import PlantGuideWebPush
import PlantGuideHTTP
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

/// What the processes of a stack write to their logs, in JSON at debug level.
@Suite("Service logs", .serialized, .wholeStack, .cleansUp)
struct ServiceLogTests {
    private typealias Gateway = Plantguide_Gateway_V1_GatewayService
    private let http = CurlHTTPClient()

    /// And a call's lines carry its trace id in each process it crosses.
    @Test("JSON lines with time, level, service and message, joined by trace id; no token, password, API key, calendar secret or photo")
    func jsonLogsWithoutSecrets() async throws {
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-logs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        TestResources.track(folder: logs)
        let plantnetKey = "plantnet-key-\(UUID().uuidString)"
        let trefleToken = "trefle-token-\(UUID().uuidString)"
        // A Trefle that fails: the care lookups that fall back to the catalog are where a URL with the token in it
        // could end up in a log line.
        let trefle = try FakeHTTPServer { _ in .reply(status: 500, body: Data("down".utf8)) }
        let stack = try await GatewayJourneyTests.Stack(
            serviceExtra: ["PLANTGUIDE_PLANTNET_KEY": plantnetKey, "PLANTGUIDE_TREFLE_TOKEN": trefleToken,
                           "PLANTGUIDE_TREFLE_URL": trefle.baseURL.absoluteString],
            logs: logs)
        let token = try await stack.token(for: "ana")
        let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
        let photo = try TestImages.jpeg(TestImages.gradient(width: 320, height: 240))

        let identified = try await stack.call(Gateway.identifyPlant, .with { $0.images = [.with { $0.data = photo; $0.organ = .leaf }] },
                                              token: token, extra: ["plantguide-trace-id": traceID])
        #expect(identified.identification.candidates.first?.scientificName == "Hibiscus rosa-sinensis")
        _ = try await stack.call(Gateway.savePlant, .with {
            $0.plant = .with { $0.id = "p1"; $0.scientificName = "Ficus lyrata"; $0.customName = "Fig" }
        }, token: token, extra: ["plantguide-trace-id": traceID])
        await #expect(throws: RPCError.self) { _ = try await stack.call(Gateway.listPlants, .init(), token: "pg_not_a_real_token") }
        try await stack.waitForHTTP()
        let link = try await http.send(HTTPRequest(method: "POST", url: stack.httpBase.appendingPathComponent("v1/calendar-link"),
                                                   headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                                                   body: Data("{}".utf8)), timeout: TestTime.scaled(.seconds(20)))
        // An app's W3C traceparent joins the lines too, with no trace exporter set up.
        let appTrace = "0af7651916cd43dd8448eb211c80319c"
        let renamed = try await http.send(HTTPRequest(
            method: "PATCH", url: stack.httpBase.appendingPathComponent("v1/plants/p1"),
            headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json", "traceparent": "00-\(appTrace)-b7ad6b7169203331-01"],
            body: Data(#"{"plant": {"customName": "Figgy"}, "updateMask": "customName"}"#.utf8)), timeout: TestTime.scaled(.seconds(20)))
        #expect(renamed.status == 200, "\(String(decoding: renamed.body, as: UTF8.self))")
        let path = try #require((try JSONSerialization.jsonObject(with: link.body) as? [String: Any])?["path"] as? String)
        let secret = try #require(path.split(separator: "/").last.map { String($0.dropLast(".ics".count)) })
        let feed = try await http.get(URL(string: stack.httpBase.absoluteString + path)!, headers: [:], timeout: TestTime.scaled(.seconds(20)))
        #expect(feed.status == 200 && secret.count >= 32)
        // A person signs up, fails a sign-in and signs in: neither password nor tokens may reach a log line.
        let password = "basil-\(UUID().uuidString.prefix(8))-water"
        var issued: [String] = []
        for (path, body) in [("v1/accounts", password), ("v1/sessions", "wrong-\(password)"), ("v1/sessions", password)] {
            let answer = try await http.send(HTTPRequest(method: "POST", url: stack.httpBase.appendingPathComponent(path),
                                                         headers: ["Content-Type": "application/json"],
                                                         body: Data(#"{"name": "cleo", "password": "\#(body)"}"#.utf8)),
                                             timeout: TestTime.scaled(.seconds(20)))
            if let token = (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["token"] as? String { issued.append(token) }
        }
        #expect(issued.count == 2, "signed up and signed in once each")
        // A browser signs in to a session cookie and turns on Web Push: neither the cookie, the subscription's
        // endpoint and keys, nor the VAPID private key may reach a log line.
        let origin = stack.httpBase.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let signedIn = try await http.send(HTTPRequest(method: "POST", url: stack.httpBase.appendingPathComponent("v1/sessions"),
                                                       headers: ["Content-Type": "application/json", "Origin": origin],
                                                       body: Data(#"{"name": "cleo", "password": "\#(password)", "cookie": true}"#.utf8)),
                                           timeout: TestTime.scaled(.seconds(20)))
        let cookie = String(signedIn.headers["set-cookie"]?.prefix { $0 != ";" } ?? "")
        let sessionToken = String(cookie.drop { $0 != "=" }.dropFirst())
        #expect(sessionToken.hasPrefix("pg_"), "\(signedIn.status)")
        let push = try FakePushService(vapidPublicKey: GatewayJourneyTests.Stack.vapidKey.publicKeyBase64URL)
        defer { push.stop() }
        let endpoint = push.endpoint("browser-\(UUID().uuidString.prefix(8))")
        let subscribed = try await http.send(HTTPRequest(
            method: "POST", url: stack.httpBase.appendingPathComponent("v1/push-subscriptions"),
            headers: ["Content-Type": "application/json", "Origin": origin, "Cookie": cookie],
            body: Data(#"{"endpoint": "\#(endpoint)", "keys": {"p256dh": "\#(push.p256dh)", "auth": "\#(push.authText)"}}"#.utf8)),
            timeout: TestTime.scaled(.seconds(20)))
        #expect(subscribed.status == 200, "\(String(decoding: subscribed.body, as: UTF8.self))")
        await stack.stop()

        var lines: [[String: Any]] = []
        var text = ""
        for file in try FileManager.default.contentsOfDirectory(at: logs, includingPropertiesForKeys: nil) {
            let content = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            text += content
            for line in content.split(separator: "\n") {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object != nil, "not a JSON object: \(line)")
                if let object { lines.append(object) }
            }
        }
        #expect(lines.count > 20, "debug logs of five processes: \(lines.count) lines")
        for line in lines {
            #expect(line["time"] is String && line["level"] is String && line["service"] is String && line["message"] is String,
                    "\(line)")
        }
        let traced = Set(lines.filter { $0["trace_id"] as? String == traceID }.compactMap { $0["service"] as? String })
        #expect(traced.isSuperset(of: ["plantguide-gateway", "plantguide-identification", "plantguide-collection", "plantguide-scheduling"]),
                "services with lines of the traced calls: \(traced.sorted())")

        let appTraced = Set(lines.filter { $0["trace_id"] as? String == appTrace }.compactMap { $0["service"] as? String })
        #expect(appTraced.isSuperset(of: ["plantguide-gateway", "plantguide-collection"]), "services with lines of the app's trace: \(appTraced.sorted())")

        let photoPiece = photo.subdata(in: 200..<248)
        let secrets = [
            ("the bearer token", token), ("the token's secret part", String(token.split(separator: "_").last ?? "")),
            ("the Pl@ntNet key", plantnetKey), ("the Trefle token", trefleToken), ("the calendar secret", secret),
            ("a password", password), ("a wrong password", "wrong-\(password)"),
            ("a signed-up token", issued.first ?? "?"), ("a signed-in token", issued.last ?? "?"), ("an Argon2id hash", "$argon2id$"),
            ("a session cookie's token", sessionToken), ("a push endpoint's path", String(endpoint.suffix(16))),
            ("a push subscription's p256dh", push.p256dh), ("a push subscription's auth secret", push.authText),
            ("the VAPID private key (PEM)", String(GatewayJourneyTests.Stack.vapidKey.privateKeyPEM.split(separator: "\n")[1])),
            ("the VAPID private key (raw)", Base64URL.encode(GatewayJourneyTests.Stack.vapidKey.privateKey.rawRepresentation)),
            ("photo bytes in base64", photoPiece.base64EncodedString()),
            ("photo bytes in hex", photoPiece.map { String(format: "%02x", $0) }.joined()),
            ("photo bytes as they are", String(decoding: photoPiece, as: UTF8.self)),
        ]
        for (what, value) in secrets {
            #expect(!value.isEmpty && !text.contains(value), "\(what) is in the logs")
        }
    }
}
