import Foundation
import PlantGuideCore
import PlantGuideHTTP
import PlantGuideTestSupport
import Testing

/// The web app in real browsers. WebKit (MiniBrowser under Xvfb, by WebKitWebDriver) and Firefox ESR (WebDriver
/// BiDi) run the journey by keyboard with axe-core on every screen (`web_engines_browser.py`), and Firefox receives
/// Web Push end to end from a push service of ours (`firefox_push_browser.py`). Chromium (headless, driven by
/// Playwright for Python), on SQLite and on PostgreSQL with two gateways: the journeys of a person by keyboard, with
/// axe-core on every screen (`web_pages_browser.py`), and reminders on a phone: Web Push to the service worker, live
/// notices, tasks done offline (`web_push_browser.py`).
@Suite("The web app in Chromium, WebKit and Firefox", .serialized, .wholeStack, .cleansUp)
struct WebAppBrowserTests {
    private let http = CurlHTTPClient()

    @Test("reminders: a push's notification whose Done completes the task; a live notice; a care type turned off stops; a task done offline sent back online",
          arguments: [GatewayJourneyTests.JourneySetup(backend: .sqlite, replicas: 1), GatewayJourneyTests.JourneySetup(backend: .postgres, replicas: 2)])
    func remindersInChromium(setup: GatewayJourneyTests.JourneySetup) async throws {
        let stack = try await GatewayJourneyTests.Stack(setup.backend, replicas: setup.replicas)
        try await stack.waitForHTTP()
        let service = try FakePushService(vapidPublicKey: GatewayJourneyTests.Stack.vapidKey.publicKeyBase64URL)
        defer { service.stop() }
        let origin = stack.httpBase.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let signedUp = try await http.send(HTTPRequest(method: "POST", url: URL(string: origin + "/signup")!, headers: [
            "Origin": origin, "Content-Type": "application/x-www-form-urlencoded",
        ], body: Data("name=web-pia&password=basil+needs+water".utf8)), timeout: TestTime.scaled(.seconds(20)))
        let cookie = String(try #require(signedUp.headers["set-cookie"]).prefix { $0 != ";" })
        let session = ["Cookie": cookie, "Origin": origin]
        func json(_ method: String, _ path: String, _ body: String) async throws -> Int {
            try await http.send(HTTPRequest(method: method, url: URL(string: origin + path)!,
                                            headers: session.merging(["Content-Type": "application/json"]) { $1 }, body: Data(body.utf8)),
                                timeout: TestTime.scaled(.seconds(20))).status
        }
        // As the Settings page's script does with a real browser's subscription (headless Chromium has no push
        // service to subscribe with): the fake push service's endpoint and the keys it decrypts with.
        let subscribed = try await json("POST", "/v1/push-subscriptions", """
            {"endpoint": "\(service.endpoint())", "keys": {"p256dh": "\(service.p256dh)", "auth": "\(service.authText)"}}
            """)
        #expect(subscribed == 200)
        // Reminders at a minute ago: the fig's watering reminds now.
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let minuteAgo = utc.dateComponents([.hour, .minute], from: Date().addingTimeInterval(-60))
        let notify = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) < 60
            ? "00:00" : String(format: "%02d:%02d", minuteAgo.hour!, minuteAgo.minute!)
        #expect(try await json("PATCH", "/v1/settings", #"{"settings": {"notifyTime": "\#(notify)", "timeZone": "UTC"}, "updateMask": "notifyTime,timeZone"}"#)
            == 200)
        #expect(try await json("PUT", "/v1/plants/p1", #"{"plant": {"scientificName": "Ficus lyrata", "customName": "Fig"}}"#) == 200)
        #expect(await service.wait(timeout: TestTime.scaled(.seconds(20))) { $0.contains { $0.reminder?["plantId"] as? String == "p1" } },
                "no reminder reached the push service")
        let reminder = try #require(service.messages.first { $0.reminder?["plantId"] as? String == "p1" }?.payload)

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("web_push_browser.py").path
        // The browser uses the last gateway: on PostgreSQL another than the one the subscription and settings went through.
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                                 ["python3", script, "http://localhost:\(stack.httpBases.last?.port ?? 0)", cookie,
                                                  String(decoding: reminder, as: UTF8.self), "p2"],
                                                 mergingStandardError: true)
        await stack.stop()
        #expect(outcome.status == 0, "web_push_browser.py: \(outcome.output)")
        let line = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
        let report = try #require((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], "\(outcome.output)")
        // Settings says where notifications stand, and why they could not be turned on here.
        #expect(report["pushStateBefore"] as? String == "Notifications are off for this device.", "\(report)")
        #expect((report["pushStateAfterTurnOn"] as? String)?.hasPrefix("Notifications could not be turned on: ") == true, "\(report)")
        // The reminder as a notification: its title, one per task, Done and Tomorrow.
        let notifications = report["notifications"] as? [[String: Any]] ?? []
        #expect(notifications.count == 1 && notifications.first?["title"] as? String == "Water Fig" && notifications.first?["lang"] as? String == "en",
                "\(report)")
        #expect(notifications.first?["actions"] as? [String] == ["complete:Done", "snooze:Tomorrow"], "\(report)")
        #expect(report["doneFromNotification"] as? Bool == true && report["notificationsAfterDone"] as? Int == 0, "\(report)")
        // With Today open, the basil saved by the page reminds, and the page says so as it arrives.
        #expect(report["liveNoticeAxe-light"] as? [String] == [] && report["liveNoticeAxe-dark"] as? [String] == [], "\(report)")
        #expect(report["savedWhileOpen"] as? Int == 200 && report["liveNotice"] as? String == "Reminder: Water Basil Open Today Dismiss", "\(report)")
        // Watering reminders off: the mint's watering is planned, and neither the page nor the push service hears of it.
        #expect(report["savedAfterOff"] as? Int == 200 && report["quietPlanned"] as? Int == 1, "\(report)")
        #expect(report["noticesAfterOff"] as? [String] == [], "\(report)")
        #expect(!service.messages.contains { $0.reminder?["plantId"] as? String == "quiet" }, "a reminder of the mint reached the push service")
        // Offline: kept and said so; online again: sent once, nothing left.
        #expect(report["offlineTaskFound"] as? Bool == true, "\(report)")
        #expect((report["offlineRow"] as? String)?.hasPrefix("Kept on this device") == true && report["keptWhileOffline"] as? Int == 1, "\(report)")
        #expect(report["completedOnceOnline"] as? Bool == true && report["keptAfterOnline"] as? Int == 0, "\(report)")
        #expect(report["keptAfterReopen"] as? Int == 0 && report["offlineTaskState"] as? String == "TASK_STATE_COMPLETED"
                && report["completedBetweenClickAndCheck"] as? Bool == true, "completed when sent, nothing left to send: \(report)")
    }

    @Test("""
          Web Push in Firefox, end to end: the page subscribes with a push service of ours, Firefox decrypts the reminder and shows it, \
          its Done completes the task; 410 and Turn off remove the subscription
          """,
          arguments: ["en", "es"])
    func pushInFirefox(language: String) async throws {
        let stack = try await GatewayJourneyTests.Stack(.sqlite)
        try await stack.waitForHTTP()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("firefox_push_browser.py").path
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                                 ["python3", script, "http://localhost:\(stack.httpBase.port ?? 0)", language],
                                                 mergingStandardError: false)
        await stack.stop()
        #expect(outcome.status == 0, "firefox_push_browser.py: \(outcome.output)")
        let line = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
        let report = try #require((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], "\(outcome.output)")
        #expect(report["failure"] == nil, "\(report)")
        // Settings' own button subscribed: a channel at the push service, the subscription at the gateway.
        #expect(report["channels"] as? Int == 1 && report["subscriptionsAtGateway"] as? Int == 1, "\(report)")
        // The reminder went through the push service, encrypted, and Firefox acknowledged it as delivered (100, not
        // 101: it decrypted).
        let posts = report["posts"] as? [[String: Any]] ?? []
        #expect(posts.first?["status"] as? Int == 201 && posts.first?["encoding"] as? String == "aes128gcm" && posts.first?["vapid"] as? String == "vapid",
                "\(posts)")
        #expect(report["acks"] as? [Int] == [100], "\(report)")
        // The service worker showed it, worded in the page's language, and Firefox displayed it.
        let title = language == "es" ? "Regar Fig" : "Water Fig"
        let buttons = language == "es" ? ["complete:Hecho", "snooze:Mañana"] : ["complete:Done", "snooze:Tomorrow"]
        let notifications = report["notifications"] as? [[String: Any]] ?? []
        #expect(notifications.count == 1 && notifications.first?["title"] as? String == title && notifications.first?["lang"] as? String == language,
                "\(report)")
        #expect(notifications.first?["actions"] as? [String] == buttons, "\(report)")
        #expect((report["alerts"] as? [[String: Any]])?.first?["title"] as? String == title, "Firefox's own notification: \(report)")
        #expect(report["dueBeforeDone"] as? Bool == true && report["doneFromNotification"] as? Bool == true, "\(report)")
        // Expired at the push service: the next reminder's 410 removed it. Turned off in Settings: gone at the
        // gateway, and Firefox unregistered its channels.
        #expect(report["postsAfterGone"] as? [Int] == [410] && report["removedAfterGone"] as? Bool == true, "\(report)")
        #expect(report["subscriptionsAfterResubscribe"] as? Int == 1 && report["subscriptionsAfterTurnOff"] as? Int == 0, "\(report)")
        #expect((report["channelsUnregistered"] as? Int ?? 0) >= 1, "\(report)")
        if let shown = report["secondsSavedToShown"] as? Double {
            print("Firefox Web Push (\(language)): \(Int(shown * 1_000)) ms from the plant saved (its reminder due) to the notification shown")
        }
    }

    @Test("""
          the journey by keyboard in WebKit and Firefox: sign up, Done and Undo, edit, Settings, identify and add, sign out; \
          no axe violation on any screen, light and dark, phone and desktop
          """,
          arguments: ["webkit", "firefox"])
    func inOtherEngines(engine: String) async throws {
        let stack = try await GatewayJourneyTests.Stack(.sqlite)
        try await stack.waitForHTTP()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("web_engines_browser.py").path
        let photo = FileManager.default.temporaryDirectory.appendingPathComponent("identify-\(UUID()).jpg")
        try TestImages.jpeg(TestImages.gradient(width: 320, height: 240)).write(to: photo)
        defer { try? FileManager.default.removeItem(at: photo) }
        // MiniBrowser has no headless mode: it runs on a virtual display of its own.
        let origin = "http://localhost:\(stack.httpBase.port ?? 0)"
        let command = (engine == "webkit" ? ["xvfb-run", "-a"] : []) + ["python3", script, engine, origin, "", photo.path]
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), command, mergingStandardError: false)
        await stack.stop()
        #expect(outcome.status == 0, "web_engines_browser.py: \(outcome.output)")
        let line = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
        let report = try #require((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], "\(outcome.output)")
        #expect(report["failure"] == nil, "\(report)")
        #expect(report["firstFocus"] as? String == "Skip to content" && report["saved"] as? [Int] == [200, 200], "\(report)")
        #expect(report["doneOnToday"] as? String == "Done: Water Fig Undo: Water Fig" && report["undoneOnToday"] as? Bool == true, "\(report)")
        #expect(report["edited"] as? Bool == true && report["signedOut"] as? Bool == true, "\(report)")
        let identified = report["identifiedPlant"] as? [String: Any] ?? [:]
        #expect((report["identifyResults"] as? Int ?? 0) > 0 && identified["name"] as? String == "Hibiscus rosa-sinensis" && identified["photos"] as? Int == 1,
                "\(report)")
        // Nine screens, in two themes at two widths; axe-core finds nothing on any, and nothing scrolls sideways.
        let screens = report["screens"] as? [String: [[String: Any]]] ?? [:]
        #expect(screens.count == 9 * 2 * 2, "\(screens.keys.sorted())")
        for (screen, violations) in screens.sorted(by: { $0.key < $1.key }) {
            #expect(violations.isEmpty, "\(engine) \(screen): \(violations)")
        }
        let reflow = report["reflow"] as? [String: Int] ?? [:]
        #expect(!reflow.isEmpty && reflow.values.allSatisfy { $0 <= 0 }, "\(engine): pixels scrolled sideways: \(reflow)")
        let phone = (report["widths"] as? [String: Int])?["phone"] ?? 0
        #expect(phone > 0 && phone <= 480, "\(engine): the phone's width was \(phone)")
    }

    @Test("journey by keyboard: identify, add, edit, undo, passkey, export; installable; offline; no axe or CSP violation; reflow, reduced motion; LCP ≤ 1 s",
          arguments: [GatewayJourneyTests.JourneySetup(backend: .sqlite, replicas: 1), GatewayJourneyTests.JourneySetup(backend: .postgres, replicas: 2)])
    func inChromium(setup: GatewayJourneyTests.JourneySetup) async throws {
        let stack = try await GatewayJourneyTests.Stack(setup.backend, replicas: setup.replicas)
        try await stack.waitForHTTP()
        // On PostgreSQL, Settings, Identify and the plant added go through the second gateway.
        let other = stack.httpBases.count > 1 ? "http://localhost:\(stack.httpBases[1].port ?? 0)" : ""
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("web_pages_browser.py").path
        let photo = FileManager.default.temporaryDirectory.appendingPathComponent("identify-\(UUID()).jpg")
        try TestImages.jpeg(TestImages.gradient(width: 320, height: 240)).write(to: photo)
        defer { try? FileManager.default.removeItem(at: photo) }
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                                 ["python3", script, "http://localhost:\(stack.httpBase.port ?? 0)", "", photo.path, other],
                                                 mergingStandardError: true)
        await stack.stop()
        #expect(outcome.status == 0, "web_pages_browser.py: \(outcome.output)")
        let line = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
        let report = try #require((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], "\(outcome.output)")
        let screens = report["screens"] as? [String: [[String: Any]]] ?? [:]
        #expect(screens.count == 18, "\(report)")
        #expect(report["undoneOnToday"] as? Bool == true, "Undo on Today: \(report)")
        #expect(report["doneOnToday"] as? String == "Done: Water Fig Undo : Water Fig", "Done on Today, by keyboard and htmx: \(report)")
        #expect(report["edited"] as? Bool == true, "the location typed on the edit page shows on the plant's page: \(report)")
        for (screen, violations) in screens.sorted(by: { $0.key < $1.key }) {
            #expect(violations.isEmpty, "\(screen): \(violations)")
        }
        #expect((report["csp"] as? [String])?.isEmpty == true, "CSP violations: \(report["csp"] ?? "")")
        // At 320 CSS pixels wide (400 % zoom) no screen scrolls sideways; asked for reduced motion, nothing moves.
        let reflow = report["reflow"] as? [String: Int] ?? [:]
        #expect(reflow.count == screens.count / 2 && reflow.values.allSatisfy { $0 <= 0 },
                "pixels scrolled sideways: \(reflow), by \(report["reflowCulprits"] ?? "")")
        let motion = report["motion"] as? [String: [String]] ?? [:]
        #expect(motion.count == screens.count / 2 && motion.values.allSatisfy(\.isEmpty), "still moving: \(motion)")
        #expect(report["saved"] as? [Int] == [200, 200], "\(report)")
        // Identified by the fake Pl@ntNet, added with its photo, its care planned.
        #expect((report["identifyResults"] as? Int ?? 0) > 0, "\(report)")
        let identified = report["identifiedPlant"] as? [String: Any] ?? [:]
        #expect(identified["name"] as? String == "Hibiscus rosa-sinensis" && identified["photos"] as? Int == 1, "\(identified)")
        #expect((identified["tasks"] as? Int ?? 0) > 0, "\(identified)")
        #expect(report["identifiedSeenThroughFirst"] as? Bool == true, "\(report)")
        // A passkey added in Settings (its row: the name given, when), then a sign-in with it alone.
        #expect((report["passkeyAdded"] as? String)?.hasPrefix("Test phone · Added ") == true, "\(report)")
        let export = report["export"] as? [String: Any] ?? [:]
        #expect((export["name"] as? String)?.hasPrefix("plantguide-") == true && export["ustar"] as? Bool == true
                && (export["bytes"] as? Int ?? 0) > 1_024, "the download: \(export)")
        #expect(report["passkeySignIn"] as? Bool == true && report["passkeysAfterRemoval"] as? Int == 0, "\(report)")
        let iphone = report["iphonePush"] as? [String: Any]
        #expect((iphone?["state"] as? String)?.hasPrefix("Add PlantGuide to your Home Screen first") == true && iphone?["buttonShown"] as? Bool == false,
                "\(String(describing: iphone))")
        #expect(report["firstFocus"] as? String == "Skip to content")
        #expect(report["installability"] as? [String] == [], "installability errors: \(report["installability"] ?? "")")
        let offline = report["offline"] as? [String: Bool] ?? [:]
        #expect(offline["plants"] == true && offline["banner"] == true, "offline: \(offline)")
        #expect(report["keptAfterSignOut"] as? Bool == false, "My plants still opened offline after signing out")
        for (screen, paint) in report["lcp"] as? [String: Double] ?? [:] {
            #expect(paint > 0 && paint <= 1_000, "\(screen): largest contentful paint \(paint) ms")
        }
    }
}
