import Foundation
import PlantGuideCore
import PlantGuideHTTP
import PlantGuideTestSupport
import Testing

/// The gateway's HTTP/JSON front, transcoded from the google.api.http bindings, over a real stack.
@Suite("Gateway over HTTP/JSON", .serialized, .wholeStack, .cleansUp)
struct GatewayHTTPTests {
    private let http = CurlHTTPClient()

    private func send(_ stack: GatewayJourneyTests.Stack, _ method: String, _ path: String, token: String?, json: String? = nil,
                      extra: [String: String] = [:]) async throws -> (status: Int, body: [String: Any], headers: [String: String])
    {
        var headers = extra.merging(["Content-Type": "application/json"]) { $1 }
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let url = URL(string: stack.httpBase.absoluteString + path)!
        let response = try await http.send(HTTPRequest(method: method, url: url, headers: headers, body: json.map { Data($0.utf8) }),
                                           timeout: TestTime.scaled(.seconds(20)))
        let body = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        return (response.status, body, response.headers)
    }

    /// Sets the caller's notify time to the minute just gone (UTC) and saves plant p1, "Fig": its first task, due
    /// today, reminds at once. Returns the save's answer.
    private func saveFigRemindingNow(_ stack: GatewayJourneyTests.Stack, token: String?, extra: [String: String] = [:]) async throws
        -> (status: Int, body: [String: Any], headers: [String: String])
    {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let parts = utc.dateComponents([.hour, .minute], from: Date().addingTimeInterval(-60))
        let notify = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) < 60
            ? "00:00" : String(format: "%02d:%02d", parts.hour!, parts.minute!)
        let settings = try await send(stack, "PATCH", "/v1/settings", token: token, json: """
            {"settings": {"notifyTime": "\(notify)", "timeZone": "UTC"}, "updateMask": "notifyTime,timeZone"}
            """, extra: extra)
        #expect(settings.status == 200, "\(settings.body)")
        return try await send(stack, "PUT", "/v1/plants/p1", token: token, json: #"{"plant": {"scientificName": "Ficus lyrata", "customName": "Fig"}}"#,
                              extra: extra)
    }

    @Test("identify, save, list, detail, complete, share read-only, delete a plant and erase all over HTTP; errors map to HTTP statuses",
          arguments: TestBackend.allCases)
    func journey(backend: TestBackend) async throws {
        let stack = try await GatewayJourneyTests.Stack(backend)
        let token = try await stack.token(for: "ana")
        let bob = try await stack.token(for: "bob")
        try await stack.waitForHTTP()

        let ready = try await send(stack, "GET", "/readyz", token: nil)
        #expect(ready.status == 200 && ready.body["ready"] as? Bool == true)
        let anonymous = try await send(stack, "GET", "/v1/plants", token: nil)
        #expect(anonymous.status == 401 && (anonymous.body["error"] as? [String: Any])?["status"] as? String == "UNAUTHENTICATED")

        // A person opens an account without a token, signs in on a second device, and both tokens work.
        let opened = try await send(stack, "POST", "/v1/accounts", token: nil, json: #"{"name": "cleo", "password": "basil needs water"}"#)
        let cleo = try #require(opened.body["token"] as? String, "\(opened.status) \(opened.body)")
        let wrong = try await send(stack, "POST", "/v1/sessions", token: nil, json: #"{"name": "cleo", "password": "not her password"}"#)
        let unknown = try await send(stack, "POST", "/v1/sessions", token: nil, json: #"{"name": "nobody", "password": "not her password"}"#)
        #expect(wrong.status == 401 && unknown.status == 401)
        #expect((wrong.body["error"] as? [String: Any])?["message"] as? String == (unknown.body["error"] as? [String: Any])?["message"] as? String)
        let session = try await send(stack, "POST", "/v1/sessions", token: nil, json: #"{"name": "cleo", "password": "basil needs water"}"#)
        let secondDevice = try #require(session.body["token"] as? String, "\(session.status) \(session.body)")
        for token in [cleo, secondDevice] {
            #expect(try await send(stack, "GET", "/v1/plants", token: token).status == 200)
        }
        let sessions = try await send(stack, "GET", "/v1/sessions", token: cleo)
        let devices = sessions.body["sessions"] as? [[String: Any]] ?? []
        #expect(devices.count == 2 && devices.filter { $0["current"] as? Bool == true }.count == 1, "\(sessions.body)")
        let signedOut = try await send(stack, "POST", "/v1/sessions:signOutOthers", token: cleo, json: "{}")
        #expect(signedOut.status == 200 && signedOut.body["signedOut"] as? Int == 1, "\(signedOut.body)")
        var refused = false
        for _ in 0..<40 where !refused {  // revocations reach every gateway's token cache within a quarter second
            refused = try await send(stack, "GET", "/v1/plants", token: secondDevice).status == 401
            if !refused { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(refused, "the second device's token still works after signing out the others")
        let common = try await send(stack, "POST", "/v1/accounts", token: nil, json: #"{"name": "dan", "password": "password123"}"#)
        #expect(common.status == 400, "\(common.body)")

        let photo = try TestImages.jpeg(TestImages.gradient(width: 320, height: 240)).base64EncodedString()
        let identified = try await send(stack, "POST", "/v1/identifications", token: token,
                                        json: #"{"images": [{"data": "\#(photo)", "organ": "ORGAN_LEAF"}], "method": "IDENTIFICATION_METHOD_PLANTNET"}"#)
        let candidates = (identified.body["identification"] as? [String: Any])?["candidates"] as? [[String: Any]] ?? []
        #expect(identified.status == 200 && candidates.first?["scientificName"] as? String == "Hibiscus rosa-sinensis", "\(identified.body)")
        #expect(identified.body["careInfo"] != nil)

        let saved = try await send(stack, "PUT", "/v1/plants/p9", token: token,
                                   json: #"{"plant": {"scientificName": "Monstera deliciosa", "customName": "Monty"}}"#)
        #expect(saved.status == 200 && (saved.body["plant"] as? [String: Any])?["id"] as? String == "p9", "\(saved.body)")
        #expect(saved.body["created"] as? Bool == true && !((saved.body["tasks"] as? [Any]) ?? []).isEmpty)

        let listed = try await send(stack, "GET", "/v1/plants?filter.query=monty&filter.page_size=10", token: token)
        let plants = ((listed.body["page"] as? [String: Any])?["plants"] as? [[String: Any]]) ?? []
        #expect(listed.status == 200 && plants.map { $0["id"] as? String } == ["p9"])
        let detail = try await send(stack, "GET", "/v1/plants/p9", token: token)
        #expect(detail.status == 200 && !((detail.body["upcomingTasks"] as? [Any]) ?? []).isEmpty)

        let tasks = try await send(stack, "GET", "/v1/tasks?view=VIEW_OPEN", token: token)
        let taskID = try #require(((tasks.body["tasks"] as? [[String: Any]])?.first)?["id"] as? String)
        #expect((tasks.body["plantNames"] as? [String: String])?["p9"] == "Monty")
        let done = try await send(stack, "POST", "/v1/tasks:complete", token: token, json: #"{"taskIds": ["\#(taskID)"]}"#)
        #expect(done.status == 200 && ((done.body["completed"] as? [[String: Any]])?.first)?["id"] as? String == taskID)

        let nameless = try await send(stack, "PUT", "/v1/plants/p10", token: token, json: #"{"plant": {"customName": "?"}}"#)
        let error = nameless.body["error"] as? [String: Any]
        #expect(nameless.status == 400 && error?["status"] as? String == "INVALID_ARGUMENT")
        #expect(((error?["fieldViolations"] as? [[String: Any]])?.first)?["field"] as? String == "plant.scientific_name")
        let garbage = try await send(stack, "PUT", "/v1/plants/p11", token: token, json: "{not json")
        #expect(garbage.status == 400)

        // Bob, sharing Ana's collection read-only, reads it through the header and is refused a delete (403).
        let shared = try await send(stack, "PUT", "/v1/shares/bob", token: token, json: #"{"access": "SHARE_ACCESS_READ_ONLY"}"#)
        let asAna = ["PlantGuide-Collection-Owner": "ana"]
        let bobReads = try await send(stack, "GET", "/v1/plants/p9", token: bob, extra: asAna)
        let bobDeletes = try await send(stack, "DELETE", "/v1/plants/p9", token: bob, extra: asAna)
        #expect(shared.status == 200 && bobReads.status == 200 && bobDeletes.status == 403, "\(bobDeletes.body)")

        let deleted = try await send(stack, "DELETE", "/v1/plants/p9", token: token)
        #expect(deleted.status == 200 && deleted.body["deleted"] as? Bool == true)
        let gone = try await send(stack, "GET", "/v1/plants/p9", token: token)
        #expect(gone.status == 404)
        _ = try await send(stack, "PUT", "/v1/plants/p12", token: token, json: #"{"plant": {"scientificName": "Ficus lyrata"}}"#)
        let erased = try await send(stack, "DELETE", "/v1/data", token: token)
        let nothingLeft = try await send(stack, "GET", "/v1/tasks?view=VIEW_OPEN", token: token)
        let noPlants = try await send(stack, "GET", "/v1/plants", token: token)
        #expect(erased.status == 200 && erased.body["plantsDeleted"] as? Int == 1 && (erased.body["tasksDeleted"] as? Int ?? 0) > 0)
        #expect((nothingLeft.body["tasks"] as? [Any] ?? []).isEmpty && ((noPlants.body["page"] as? [String: Any])?["plants"] as? [Any] ?? []).isEmpty)

        let unknownRoute = try await send(stack, "GET", "/v1/nothing", token: token)
        let wrongVerb = try await send(stack, "POST", "/v1/plants/p9", token: token, json: "{}")
        let allowed = Set(wrongVerb.headers["allow"]?.components(separatedBy: ", ") ?? [])
        #expect(unknownRoute.status == 404 && wrongVerb.status == 405 && allowed == ["PUT", "GET", "PATCH", "DELETE", "OPTIONS"])
        let metrics = try await http.get(stack.httpBase.appendingPathComponent("metrics"), headers: [:], timeout: .seconds(5))
        #expect(metrics.status == 200 && String(decoding: metrics.body, as: UTF8.self).contains("plantguide_rpc_server"))
        let openAPI = try await send(stack, "GET", "/openapi.json", token: nil)
        let paths = openAPI.body["paths"] as? [String: [String: Any]]
        #expect(openAPI.status == 200 && openAPI.body["openapi"] as? String == "3.0.3")
        #expect(paths?["/v1/plants/{plant_id}"]?.keys.sorted() == ["delete", "get", "patch", "put"])
        await stack.stop()
    }

    @Test("photos: a raw image and a multipart upload, served back with ETag, caching and 304; other users get 404", arguments: TestBackend.allCases)
    func photos(backend: TestBackend) async throws {
        let stack = try await GatewayJourneyTests.Stack(backend)
        let ana = try await stack.token(for: "ana")
        let bob = try await stack.token(for: "bob")
        try await stack.waitForHTTP()
        _ = try await send(stack, "PUT", "/v1/plants/p1", token: ana, json: #"{"plant": {"scientificName": "Ficus lyrata"}}"#)
        let jpeg = try TestImages.jpeg(TestImages.gradient(width: 400, height: 300))
        let png = TestImages.png(TestImages.halves(width: 64, height: 64))
        let url = URL(string: stack.httpBase.absoluteString + "/v1/plants/p1/photos")!

        let raw = try await http.send(HTTPRequest(method: "POST", url: url, headers: ["Authorization": "Bearer \(ana)", "Content-Type": "image/jpeg"],
                                                  body: jpeg), timeout: TestTime.scaled(.seconds(20)))
        var form = MultipartForm()
        form.addFile("file", filename: "leaf.png", mediaType: "image/png", data: png)
        let multipart = try await http.send(HTTPRequest(method: "POST", url: url, headers: ["Authorization": "Bearer \(ana)",
                                                                                            "Content-Type": form.contentType], body: form.data),
                                            timeout: TestTime.scaled(.seconds(20)))
        let rawPhoto = try #require((try JSONSerialization.jsonObject(with: raw.body) as? [String: Any])?["photo"] as? [String: Any])
        #expect(raw.status == 200 && multipart.status == 200, "\(String(decoding: raw.body, as: UTF8.self))")
        let sha = try #require(rawPhoto["sha256"] as? String)

        let photoURL = URL(string: stack.httpBase.absoluteString + "/v1/photos/\(sha)")!
        let original = try await http.get(photoURL, headers: ["Authorization": "Bearer \(ana)"], timeout: TestTime.scaled(.seconds(20)))
        #expect(original.status == 200 && original.body == jpeg && original.headers["content-type"] == "image/jpeg")
        #expect(original.headers["etag"] == "\"\(sha)\"" && original.headers["cache-control"]?.contains("immutable") == true)
        let again = try await http.get(photoURL, headers: ["Authorization": "Bearer \(ana)", "If-None-Match": "\"\(sha)\""],
                                       timeout: TestTime.scaled(.seconds(20)))
        #expect(again.status == 304 && again.body.isEmpty)
        let thumbnail = try await http.get(URL(string: photoURL.absoluteString + "?size=256")!, headers: ["Authorization": "Bearer \(ana)"],
                                           timeout: TestTime.scaled(.seconds(20)))
        #expect(thumbnail.status == 200 && thumbnail.headers["etag"] != "\"\(sha)\"" && thumbnail.body.count < jpeg.count)
        let stolen = try await http.get(photoURL, headers: ["Authorization": "Bearer \(bob)"], timeout: TestTime.scaled(.seconds(20)))
        #expect(stolen.status == 404, "\(String(decoding: stolen.body, as: UTF8.self))")

        let removed = try await send(stack, "DELETE", "/v1/plants/p1/photos/\(sha)", token: ana)
        #expect(removed.status == 200 && removed.body["deleted"] as? Bool == true)
        let gone = try await http.get(photoURL, headers: ["Authorization": "Bearer \(ana)"], timeout: TestTime.scaled(.seconds(20)))
        #expect(gone.status == 404)
        await stack.stop()
    }

    @Test("the plantguide client: login, add, list, show, tasks, done, export, rm, import, share, signup, with clear errors",
          arguments: TestBackend.allCases)
    func client(backend: TestBackend) async throws {
        let stack = try await GatewayJourneyTests.Stack(backend)
        let token = try await stack.token(for: "ana")
        try await stack.waitForHTTP()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-cli-\(UUID().uuidString)")
        TestResources.track(folder: folder)
        let environment = ["PLANTGUIDE_CONFIG": folder.appendingPathComponent("config.json").path, "PLANTGUIDE_URL": "", "PLANTGUIDE_TOKEN": ""]
        func plantguide(_ arguments: String...) async throws -> ChildProcess.Outcome {
            try await ChildProcess.run(BuildProducts.url(of: "plantguide"), arguments, environment: environment, mergingStandardError: true)
        }

        let notLoggedIn = try await plantguide("plants", "list")
        #expect(notLoggedIn.status != 0 && notLoggedIn.output.contains("plantguide login"))
        let refused = try await plantguide("login", stack.httpBase.absoluteString, "pg_0_wrong")
        #expect(refused.status == 4 && refused.output.contains("unknown or revoked"))
        let login = try await plantguide("login", stack.httpBase.absoluteString, token)
        #expect(login.status == 0, "\(login.output)")
        let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("config.json").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let added = try await plantguide("plants", "add", "monty", "Monstera deliciosa", "--name", "Monty", "--location", "Hall")
        #expect(added.status == 0 && added.output.contains("saved monty") && added.output.contains("tasks planned"), "\(added.output)")
        let bad = try await plantguide("plants", "add", "x", "42")
        #expect(bad.status == 3 && bad.output.contains("plant.scientific_name"), "\(bad.output)")
        let listed = try await plantguide("plants", "list")
        #expect(listed.status == 0 && listed.output.contains("monty") && listed.output.contains("Monstera deliciosa") && listed.output.contains("Hall"))
        let json = try await plantguide("plants", "list", "--json")
        #expect(json.status == 0 && json.output.contains("\"customName\" : \"Monty\""))
        let shown = try await plantguide("plants", "show", "monty")
        #expect(shown.status == 0 && shown.output.contains("water every") && shown.output.contains("watering"), "\(shown.output)")
        #expect(!["TASK_TYPE_", "LIGHT_LEVEL_", "_FREQUENCY_"].contains { shown.output.contains($0) }, "enum names shown: \(shown.output)")

        let tasks = try await plantguide("tasks", "week")
        let taskID = try #require(tasks.output.split(separator: "\n").dropFirst().first?.split(separator: " ").last.map(String.init))
        #expect(tasks.status == 0 && tasks.output.contains("Monty"), "\(tasks.output)")
        let done = try await plantguide("done", taskID)
        #expect(done.status == 0 && done.output.hasPrefix("done: 1"), "\(done.output)")

        let edited = try await plantguide("plants", "edit", "monty", "--name", "Big Monty")
        let renamedTasks = try await plantguide("tasks", "all")
        let favourite = try await plantguide("plants", "fav", "monty")
        let favourites = try await plantguide("plants", "list", "--json")
        #expect(edited.status == 0 && renamedTasks.output.contains("Big Monty"), "reminders follow the new name: \(renamedTasks.output)")
        #expect(favourite.status == 0 && favourites.output.contains("\"favorite\" : true"))
        let care = try await plantguide("care", "Ficus lyrata")
        #expect(care.status == 0 && care.output.contains("water") && care.output.contains("every") && care.output.contains("feed"), "\(care.output)")
        #expect(!["LIGHT_LEVEL_", "_FREQUENCY_", "FERTILIZER_TYPE_", "CARE_SOURCE_"].contains { care.output.contains($0) }, "enum names shown: \(care.output)")
        let tomato = try await plantguide("care", "Solanum lycopersicum")
        #expect(tomato.output.contains("the fruits, about 70 days from sowing, picked July–September"), "\(tomato.output)")
        #expect(tomato.output.contains("high-potassium feed") && !tomato.output.contains("keep away from pets"), "\(tomato.output)")
        let careJSON = try await plantguide("care", "Ficus lyrata", "--json")
        #expect(careJSON.output.contains("LIGHT_LEVEL_"), "--json keeps the gateway's names")
        let photo = folder.appendingPathComponent("leaf.jpg")
        try TestImages.jpeg(TestImages.gradient(width: 200, height: 150)).write(to: photo)
        let identified = try await plantguide("identify", photo.path)
        #expect(identified.status == 0 && identified.output.contains("Hibiscus rosa-sinensis"), "\(identified.output)")

        let archive = folder.appendingPathComponent("export.tar").path
        let exported = try await plantguide("export", archive)
        let removed = try await plantguide("plants", "rm", "monty")
        let imported = try await plantguide("import", archive)
        let back = try await plantguide("plants", "list")
        let missing = try await plantguide("plants", "rm", "nope")
        #expect(exported.status == 0 && removed.output.contains("deleted monty"))
        #expect(missing.status == 3 && missing.output.contains("no plant 'nope'"), "\(missing.output)")
        #expect(imported.status == 0 && imported.output.contains("imported 1 plants") && back.output.contains("monty"), "\(imported.output)")

        // Sharing with Bob, who then lists Ana's plants through PLANTGUIDE_COLLECTION_OWNER.
        let bob = try await stack.token(for: "bob")
        let shared = try await plantguide("share", "bob")
        let shares = try await plantguide("shares")
        let bobsView = try await ChildProcess.run(BuildProducts.url(of: "plantguide"), ["plants", "list"], environment: [
            "PLANTGUIDE_CONFIG": folder.appendingPathComponent("none.json").path, "PLANTGUIDE_URL": stack.httpBase.absoluteString,
            "PLANTGUIDE_TOKEN": bob, "PLANTGUIDE_COLLECTION_OWNER": "ana",
        ], mergingStandardError: true)
        let unshared = try await plantguide("unshare", "bob")
        #expect(shared.status == 0 && shares.output.contains("you → bob") && shares.output.contains("read-only"), "\(shares.output)")
        #expect(bobsView.status == 0 && bobsView.output.contains("monty"), "\(bobsView.output)")
        #expect(unshared.output.contains("no longer shared with bob"))

        // Eve opens an account herself (the password from PLANTGUIDE_PASSWORD, as a script gives it), then signs in
        // again by name on another device; a wrong password and a common one are refused with the gateway's words.
        func asEve(_ password: String, _ arguments: String...) async throws -> ChildProcess.Outcome {
            try await ChildProcess.run(BuildProducts.url(of: "plantguide"), arguments, environment: [
                "PLANTGUIDE_CONFIG": folder.appendingPathComponent("eve.json").path, "PLANTGUIDE_URL": "", "PLANTGUIDE_TOKEN": "",
                "PLANTGUIDE_PASSWORD": password,
            ], mergingStandardError: true)
        }
        let weak = try await asEve("password123", "signup", stack.httpBase.absoluteString, "eve")
        #expect(weak.status == 3 && weak.output.contains("most common"), "\(weak.output)")
        let signedUp = try await asEve("basil needs water", "signup", stack.httpBase.absoluteString, "eve")
        let evesPlants = try await asEve("", "plants", "list")
        #expect(signedUp.status == 0 && signedUp.output.contains("signed up as eve") && evesPlants.status == 0, "\(signedUp.output)")
        let wrong = try await asEve("not her password", "login", stack.httpBase.absoluteString, "--name", "eve")
        #expect(wrong.status == 4 && wrong.output.contains("the name or the password is wrong"), "\(wrong.output)")
        let again = try await asEve("basil needs water", "login", stack.httpBase.absoluteString, "--name", "eve")
        #expect(again.status == 0 && again.output.contains("logged in"), "\(again.output)")
        await stack.stop()
    }

    @Test("a calendar link: an iCalendar feed without a token, with the plant's tasks, from any gateway; gone once revoked or replaced",
          arguments: GatewayJourneyTests.JourneySetup.all)
    func calendar(setup: GatewayJourneyTests.JourneySetup) async throws {
        let stack = try await GatewayJourneyTests.Stack(setup.backend, replicas: setup.replicas)
        // The link is made through the first gateway and read through the last (the same one without replicas).
        let feeds = try #require(stack.httpBases.last).absoluteString
        let token = try await stack.token(for: "ana")
        try await stack.waitForHTTP()
        _ = try await send(stack, "PUT", "/v1/plants/p1", token: token, json: #"{"plant": {"scientificName": "Ficus lyrata", "customName": "Fig"}}"#)
        let link = try await send(stack, "POST", "/v1/calendar-link", token: token, json: "{}")
        let path = try #require(link.body["path"] as? String)

        let feed = try await http.get(URL(string: feeds + path)!, headers: [:], timeout: TestTime.scaled(.seconds(20)))
        let text = String(decoding: feed.body, as: UTF8.self)
        #expect(feed.status == 200 && feed.headers["content-type"]?.hasPrefix("text/calendar") == true)
        #expect(text.hasPrefix("BEGIN:VCALENDAR") && text.contains("BEGIN:VEVENT") && text.contains("Fig"))

        // Polls: the feed's ETag in If-None-Match is 304 with no body until the plant's schedule changes.
        let etag = try #require(feed.headers["etag"])
        let url = URL(string: feeds + path)!
        let unchanged = try await http.get(url, headers: ["If-None-Match": etag], timeout: TestTime.scaled(.seconds(20)))
        let otherTag = try await http.get(url, headers: ["If-None-Match": #""another", W/"version""#], timeout: TestTime.scaled(.seconds(20)))
        let any = try await http.get(url, headers: ["If-None-Match": "*"], timeout: TestTime.scaled(.seconds(20)))
        #expect(unchanged.status == 304 && unchanged.body.isEmpty && unchanged.headers["etag"] == etag && any.status == 304)
        #expect(otherTag.status == 200 && otherTag.headers["etag"] == etag)
        let renamed = try await send(stack, "PATCH", "/v1/plants/p1", token: token,
                                     json: #"{"plant": {"customName": "Fiddle"}, "updateMask": "customName"}"#)
        let changed = try await http.get(url, headers: ["If-None-Match": etag], timeout: TestTime.scaled(.seconds(20)))
        #expect(renamed.status == 200 && changed.status == 200 && changed.headers["etag"] != etag)
        #expect(String(decoding: changed.body, as: UTF8.self).contains("Fiddle"))

        let replaced = try await send(stack, "POST", "/v1/calendar-link", token: token, json: "{}")
        let old = try await http.get(URL(string: feeds + path)!, headers: [:], timeout: TestTime.scaled(.seconds(20)))
        let newPath = try #require(replaced.body["path"] as? String)
        let revoked = try await send(stack, "DELETE", "/v1/calendar-link", token: token)
        let afterRevoke = try await http.get(URL(string: feeds + newPath)!, headers: [:], timeout: TestTime.scaled(.seconds(20)))
        let guessed = try await http.get(URL(string: feeds + "/v1/calendar/\(String(repeating: "0", count: 48)).ics")!,
                                         headers: [:], timeout: TestTime.scaled(.seconds(20)))
        #expect(newPath != path && old.status == 404 && revoked.body["revoked"] as? Bool == true && afterRevoke.status == 404 && guessed.status == 404)
        await stack.stop()
    }

    @Test("the reminder stream: a reminder falling due reaches its user's stream as an SSE event, on any gateway, and no one else's",
          arguments: GatewayJourneyTests.JourneySetup.all)
    func reminderStream(setup: GatewayJourneyTests.JourneySetup) async throws {
        let stack = try await GatewayJourneyTests.Stack(setup.backend, replicas: setup.replicas)
        let ana = try await stack.token(for: "ana")
        let bob = try await stack.token(for: "bob")
        try await stack.waitForHTTP()
        // Streams on the last gateway; the reminder comes from whichever scheduling replica claims it.
        let port = try #require(stack.httpBases.last?.port)
        let refused = try EventStreamReader(port: port, path: "/v1/reminders/stream")
        let anas = try EventStreamReader(port: port, path: "/v1/reminders/stream", headers: ["Authorization": "Bearer \(ana)"])
        let bobs = try EventStreamReader(port: port, path: "/v1/reminders/stream?access_token=\(bob)")
        let opened = ": reminders as they fall due"
        #expect(await anas.text(until: { $0.contains(opened) }, timeout: TestTime.scaled(.seconds(10))).contains("text/event-stream"))
        #expect(await bobs.text(until: { $0.contains(opened) }, timeout: TestTime.scaled(.seconds(10))).contains(opened))
        #expect(await refused.text(until: { $0.contains("\r\n\r\n") }, timeout: TestTime.scaled(.seconds(10))).hasPrefix("HTTP/1.1 401"))

        let saved = try await saveFigRemindingNow(stack, token: ana)
        let tasks = saved.body["tasks"] as? [[String: Any]] ?? []
        let today = Date().formatted(.iso8601.year().month().day())
        #expect(tasks.contains { $0["dueDate"] as? String == today }, "a task is due today: \(tasks.map { $0["dueDate"] ?? "?" })")

        let stream = await anas.text(until: { text in
            text.range(of: "event: reminder").map { text[$0.upperBound...].contains("\n\n") } ?? false
        }, timeout: TestTime.scaled(.seconds(15)))
        let data = try #require(stream.components(separatedBy: "\n").first { $0.hasPrefix("data: ") }, "no reminder in: \(stream)")
        let reminder = try JSONSerialization.jsonObject(with: Data(data.dropFirst(6).utf8)) as? [String: Any]
        #expect(reminder?["plantName"] as? String == "Fig" && (reminder?["task"] as? [String: Any])?["plantId"] as? String == "p1")
        #expect(stream.contains("id: \(reminder?["id"] as? String ?? "?")"))
        let bobsStream = await bobs.text(until: { $0.contains("event: reminder") }, timeout: .milliseconds(500))
        #expect(!bobsStream.contains("event: reminder"), "Bob's stream got Ana's reminder")
        await stack.stop()
    }

    @Test("Web Push: a browser signed in by cookie subscribes; its reminder reaches the push service once, decrypted and VAPID-signed, from any replica",
          arguments: [GatewayJourneyTests.JourneySetup(backend: .sqlite, replicas: 1), GatewayJourneyTests.JourneySetup(backend: .postgres, replicas: 3)])
    func webPush(setup: GatewayJourneyTests.JourneySetup) async throws {
        let stack = try await GatewayJourneyTests.Stack(setup.backend, replicas: setup.replicas)
        try await stack.waitForHTTP()
        let vapid = GatewayJourneyTests.Stack.vapidKey
        let service = try FakePushService(vapidPublicKey: vapid.publicKeyBase64URL)
        defer { service.stop() }
        // The app's page: signs up to a cookie, reads the server key, subscribes (the PushSubscription JSON as it is).
        let page = ["Origin": stack.httpBase.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))]
        let opened = try await send(stack, "POST", "/v1/accounts", token: nil, json: #"{"name": "fay", "password": "basil needs water", "cookie": true}"#,
                                    extra: page)
        let cookie = ["Cookie": String(try #require(opened.headers["set-cookie"], "\(opened.body)").prefix { $0 != ";" })]
        let browser = cookie.merging(page) { $1 }
        let key = try await send(stack, "GET", "/v1/push/key", token: nil, extra: cookie)
        #expect(key.status == 200 && key.body["publicKey"] as? String == vapid.publicKeyBase64URL, "\(key.body)")
        let subscription = """
            {"endpoint": "\(service.endpoint())", "expirationTime": null, "keys": {"p256dh": "\(service.p256dh)", "auth": "\(service.authText)"},
             "language": "es-ES"}
            """
        let subscribed = try await send(stack, "POST", "/v1/push-subscriptions", token: nil, json: subscription, extra: browser)
        let again = try await send(stack, "POST", "/v1/push-subscriptions", token: nil, json: subscription, extra: browser)
        #expect(subscribed.status == 200 && subscribed.body["subscriptionId"] as? String == again.body["subscriptionId"] as? String, "\(subscribed.body)")
        let badKeys = try await send(stack, "POST", "/v1/push-subscriptions", token: nil,
                                     json: #"{"endpoint": "https://push.example/x", "keys": {"p256dh": "AAAA", "auth": "AAAA"}}"#, extra: browser)
        #expect(badKeys.status == 400 && "\(badKeys.body)".contains("p256dh"), "\(badKeys.body)")
        let listed = try await send(stack, "GET", "/v1/push-subscriptions", token: nil, extra: cookie)
        #expect((listed.body["subscriptions"] as? [[String: Any]])?.map { $0["pushService"] as? String } == ["127.0.0.1"], "\(listed.body)")

        let saved = try await saveFigRemindingNow(stack, token: nil, extra: browser)
        #expect(saved.status == 200, "\(saved.body)")

        #expect(await service.wait(timeout: TestTime.scaled(.seconds(20))) { !$0.isEmpty }, "no push message arrived")
        try await Task.sleep(for: .seconds(2))  // every replica's dispatcher runs several rounds meanwhile
        let messages = service.messages
        #expect(messages.count == 1, "\(messages.count) messages for one reminder")
        let message = try #require(messages.first)
        let notification = try #require(message.notification, "the message did not decrypt")
        // Worded in the language the page subscribed in.
        #expect(message.reminder?["plantId"] as? String == "p1" && notification["title"] as? String == "Regar Fig" && notification["lang"] as? String == "es",
                "\(notification)")
        #expect(message.vapidSubject == vapid.subject && message.ttl != nil && message.urgency == "normal" && message.topic != nil)

        let removed = try await send(stack, "DELETE", "/v1/push-subscriptions/\(subscribed.body["subscriptionId"] as? String ?? "")", token: nil,
                                     extra: browser)
        #expect(removed.status == 200 && removed.body["deleted"] as? Bool == true)
        await stack.stop()
    }

    @Test("a browser signs in to a session cookie (__Host-, HttpOnly, SameSite=Lax, Secure behind TLS) in place of the token; cross-site changes refused")
    func browserSession() async throws {
        let origin = "https://plants.example.test"
        let stack = try await GatewayJourneyTests.Stack(gatewayExtra: ["PLANTGUIDE_PUBLIC_ORIGIN": origin])
        try await stack.waitForHTTP()
        let ownPage = ["Origin": origin]
        let opened = try await send(stack, "POST", "/v1/accounts", token: nil, json: #"{"name": "eva", "password": "basil needs water", "cookie": true}"#,
                                    extra: ownPage)
        let setCookie = try #require(opened.headers["set-cookie"], "\(opened.status) \(opened.body)")
        #expect(opened.status == 200 && opened.body["token"] == nil && opened.body["userId"] is String, "\(opened.body)")
        #expect(setCookie.hasPrefix("__Host-plantguide_session=pg_"), "\(setCookie)")
        for flag in ["Path=/", "HttpOnly", "SameSite=Lax", "Secure", "Max-Age=7776000"] {
            #expect(setCookie.contains("; \(flag)"), "\(flag) in \(setCookie)")
        }
        #expect(!setCookie.contains("Domain="), "__Host- cookies name no domain")
        let cookie = ["Cookie": String(setCookie.prefix { $0 != ";" })]

        // The cookie stands for the token: reads need no Origin; changes need the gateway's own.
        #expect(try await send(stack, "GET", "/v1/plants", token: nil, extra: cookie).status == 200)
        let plant = #"{"plant": {"scientificName": "Ocimum basilicum", "customName": "Basil"}}"#
        let own = try await send(stack, "PUT", "/v1/plants/p1", token: nil, json: plant, extra: cookie.merging(ownPage) { $1 })
        #expect(own.status == 200, "\(own.body)")
        let forged = try await send(stack, "PUT", "/v1/plants/p2", token: nil, json: plant,
                                    extra: cookie.merging(["Origin": "https://evil.example"]) { $1 })
        let noOrigin = try await send(stack, "DELETE", "/v1/plants/p1", token: nil, extra: cookie)
        let sameSite = try await send(stack, "DELETE", "/v1/plants/p1", token: nil, extra: cookie.merging(["Sec-Fetch-Site": "same-site"]) { $1 })
        for refused in [forged, noOrigin, sameSite] {
            let error = refused.body["error"] as? [String: Any]
            #expect(refused.status == 403 && (error?["message"] as? String)?.contains("bearer token") == true, "\(refused.body)")
        }
        #expect(try await send(stack, "GET", "/v1/plants/p2", token: nil, extra: cookie).status == 404, "the forged change did nothing")
        #expect(try await send(stack, "GET", "/v1/plants/p1", token: nil, extra: cookie).status == 200)
        // A forged sign-in (login CSRF) is refused too; a program's bearer token needs no Origin.
        let forgedLogin = try await send(stack, "POST", "/v1/sessions", token: nil, json: #"{"name": "eva", "password": "basil needs water", "cookie": true}"#,
                                         extra: ["Origin": "https://evil.example"])
        #expect(forgedLogin.status == 403 && forgedLogin.headers["set-cookie"] == nil)
        let program = try await send(stack, "POST", "/v1/sessions", token: nil, json: #"{"name": "eva", "password": "basil needs water"}"#)
        let token = try #require(program.body["token"] as? String)
        #expect(try await send(stack, "DELETE", "/v1/plants/p1", token: token).status == 200)
        // CORS never lets another origin's page read answers with credentials.
        #expect(try await send(stack, "GET", "/v1/plants", token: nil, extra: cookie).headers["access-control-allow-credentials"] == nil)

        let sessions = try await send(stack, "GET", "/v1/sessions", token: nil, extra: cookie)
        let mine = (sessions.body["sessions"] as? [[String: Any]] ?? []).first { $0["current"] as? Bool == true }
        #expect(mine?["expiresAt"] is String && mine?["lastUsedAt"] is String, "\(sessions.body)")
        let signOut = try await send(stack, "DELETE", "/v1/sessions/current", token: nil, extra: cookie.merging(ownPage) { $1 })
        #expect(signOut.status == 200 && signOut.headers["set-cookie"]?.contains("Max-Age=0") == true, "\(signOut.headers)")
        var refused = false
        for _ in 0..<40 where !refused {  // revocations reach the token cache within a quarter second
            refused = try await send(stack, "GET", "/v1/plants", token: nil, extra: cookie).status == 401
            if !refused { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(refused, "the cookie still works after signing out")
        await stack.stop()
    }

    @Test("a person registers a passkey over HTTP and signs in with it alone, to a session cookie; the gateway reached by IP says to use its name")
    func passkeys() async throws {
        let stack = try await GatewayJourneyTests.Stack()
        try await stack.waitForHTTP()
        let site = "http://localhost:\(stack.httpBase.port ?? 0)"
        func post(_ path: String, _ body: String, token: String? = nil, base: String = site, extra: [String: String] = [:]) async throws
            -> (status: Int, body: [String: Any], headers: [String: String]) {
            var headers = extra.merging(["Content-Type": "application/json"]) { $1 }
            if let token { headers["Authorization"] = "Bearer \(token)" }
            let response = try await http.send(HTTPRequest(method: "POST", url: URL(string: base + path)!, headers: headers, body: Data(body.utf8)),
                                               timeout: TestTime.scaled(.seconds(20)))
            return (response.status, (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:], response.headers)
        }
        func json(_ object: [String: Any]) -> String { String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self) }
        let opened = try await post("/v1/accounts", #"{"name": "ida", "password": "basil needs water"}"#)
        let token = try #require(opened.body["token"] as? String)
        let authenticator = TestAuthenticator(relyingPartyID: "localhost", origin: site)

        let options = try await post("/v1/passkeys:beginRegistration", "{}", token: token)
        #expect((options.body["rp"] as? [String: Any])?["id"] as? String == "localhost", "\(options.body)")
        let made = authenticator.register(challenge: try #require(Base64URL.decode(options.body["challenge"] as? String ?? "")))
        let credentialID = Base64URL.encode(authenticator.credentialID)
        let registered = try await post("/v1/passkeys", json([
            "credential": ["id": credentialID, "rawId": credentialID, "type": "public-key",
                           "response": ["clientDataJSON": Base64URL.encode(made.clientDataJSON),
                                        "attestationObject": Base64URL.encode(made.attestationObject)]],
            "name": "Laptop",
        ]), token: token)
        #expect(registered.status == 200 && (registered.body["passkey"] as? [String: Any])?["name"] as? String == "Laptop", "\(registered.body)")

        let signInOptions = try await post("/v1/sessions:beginPasskey", "{}")
        let assertion = authenticator.signIn(challenge: try #require(Base64URL.decode(signInOptions.body["challenge"] as? String ?? "")), counter: 2)
        let signedIn = try await post("/v1/sessions:passkey", json([
            "credential": ["id": credentialID, "rawId": credentialID, "type": "public-key",
                           "response": ["clientDataJSON": Base64URL.encode(assertion.clientDataJSON),
                                        "authenticatorData": Base64URL.encode(assertion.authenticatorData),
                                        "signature": Base64URL.encode(assertion.signature)]],
            "cookie": true,
        ]), extra: ["Origin": site])
        let cookie = try #require(signedIn.headers["set-cookie"], "\(signedIn.status) \(signedIn.body)")
        #expect(cookie.hasPrefix("plantguide_session=pg_") && signedIn.body["token"] == nil)
        #expect(signedIn.body["userId"] as? String == opened.body["userId"] as? String)

        let byAddress = try await post("/v1/sessions:beginPasskey", "{}",
                                       base: stack.httpBase.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")))
        let message = (byAddress.body["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(byAddress.status == 400 && message.contains("not an IP address"), "\(byAddress.status) \(byAddress.body)")
        await stack.stop()
    }

    @Test("in Chromium with a virtual authenticator (ES256, EdDSA): sign up, register a passkey, sign out, sign in with it alone",
          arguments: [-7, -8])
    func passkeysInChromium(algorithm: Int) async throws {
        let stack = try await GatewayJourneyTests.Stack()
        try await stack.waitForHTTP()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("passkey_browser.py").path
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                                 ["python3", script, "http://localhost:\(stack.httpBase.port ?? 0)", String(algorithm)])
        await stack.stop()
        #expect(outcome.status == 0, "passkey_browser.py: \(outcome.output)")
        let line = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
        let steps = try #require((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], "\(outcome.output)")
        func step(_ name: String) -> (status: Int?, body: [String: Any]) {
            let answer = steps[name] as? [String: Any]
            return (answer?["status"] as? Int, answer?["body"] as? [String: Any] ?? [:])
        }
        #expect(step("signup").status == 200 && step("register").status == 200, "\(steps)")
        #expect(steps["signOut"] as? Int == 200 && steps["afterSignOut"] as? Int == 401, "signed out: \(steps)")
        let signIn = step("signIn")
        #expect(signIn.status == 200 && signIn.body["userId"] as? String == step("signup").body["userId"] as? String, "\(signIn.body)")
        let listed = step("listed").body["passkeys"] as? [[String: Any]] ?? []
        let held = steps["authenticator"] as? [[String: Any]] ?? []
        // DevTools writes credential ids in plain base64, the gateway in base64url.
        let heldID = (held.first?["credentialId"] as? String).flatMap(Base64URL.decode).map(Base64URL.encode)
        #expect(listed.count == 1 && listed.first?["id"] as? String == heldID && listed.first?["lastUsedAt"] != nil, "\(listed) \(held)")
        #expect(held.first?["isResidentCredential"] as? Bool == true)
    }

    @Test("failed sign-ins back off per client address, which a trusted proxy names in X-Forwarded-For")
    func addressBackoff() async throws {
        let stack = try await GatewayJourneyTests.Stack(gatewayExtra: ["PLANTGUIDE_TRUSTED_PROXIES": "127.0.0.1"])
        try await stack.waitForHTTP()
        func signIn(_ name: String, from client: String) async throws -> (status: Int, body: [String: Any], headers: [String: String]) {
            try await send(stack, "POST", "/v1/sessions", token: nil, json: #"{"name": "\#(name)", "password": "a guess at it"}"#,
                           extra: ["X-Forwarded-For": client])
        }
        // One guess per name, so that no name backs off; the address counts them all. Twenty are free; a failure
        // after them blocks the address for 1 s, doubling, so however slowly they come one is refused.
        var statuses: [Int] = []
        var refusal: (status: Int, body: [String: Any], headers: [String: String])?
        for attempt in 1...30 where refusal == nil {
            let answer = try await signIn("name\(attempt)", from: "198.51.100.1")
            if answer.status == 429 { refusal = answer } else { statuses.append(answer.status) }
        }
        #expect(statuses.count >= 21 && statuses.allSatisfy { $0 == 401 }, "\(statuses)")
        let error = refusal?.body["error"] as? [String: Any]
        #expect(refusal?.headers["retry-after"] != nil && (error?["message"] as? String)?.contains("too many failed sign-ins") == true,
                "\(refusal?.body ?? [:])")
        #expect(try await signIn("name1", from: "198.51.100.2").status == 401, "another client is not blocked")
        await stack.stop()
    }

    @Test("a rate-limited call is 429 with Retry-After")
    func tooManyRequests() async throws {
        let stack = try await GatewayJourneyTests.Stack(gatewayExtra: ["PLANTGUIDE_RATE_LIMIT": "1"])
        let token = try await stack.token(for: "ana")
        try await stack.waitForHTTP()
        var statuses: [Int] = []
        var retryAfter: String?
        for _ in 0..<6 {
            let reply = try await send(stack, "GET", "/v1/plants", token: token)
            statuses.append(reply.status)
            if reply.status == 429 { retryAfter = reply.headers["retry-after"] }
        }
        #expect(statuses.prefix(2).allSatisfy { $0 == 200 } && statuses.contains(429), "\(statuses)")
        #expect(retryAfter.flatMap(Int.init).map { $0 >= 1 } == true)
        await stack.stop()
    }
}
