import Foundation
import PlantGuideCore
import PlantGuideHTTP
import PlantGuideTestSupport
import Testing

/// The web app's pages over a real stack, as a browser without script uses them: forms, redirects, the session
/// cookie, strict headers, escaped text, hashed and gzipped files, two languages.
@Suite("The web app's pages", .serialized, .wholeStack, .cleansUp)
struct WebAppTests {
    private let http = CurlHTTPClient()

    private struct Page {
        var status: Int
        var headers: [String: String]
        var text: String
    }

    private func fetch(_ stack: GatewayJourneyTests.Stack, _ method: String, _ path: String, form: [String: String]? = nil,
                       formPairs: [(String, String)]? = nil, headers: [String: String] = [:]) async throws -> Page {
        var all = headers
        var body: Data?
        if let pairs = formPairs ?? form?.sorted(by: { $0.key < $1.key }).map({ ($0.key, $0.value) }) {
            all["Content-Type"] = "application/x-www-form-urlencoded"
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            body = Data(pairs.map { key, value in
                "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
            }.joined(separator: "&").utf8)
        }
        return try await send(stack, method, path, headers: all, body: body)
    }

    /// One request to the stack's HTTP front, its answer as text.
    private func send(_ stack: GatewayJourneyTests.Stack, _ method: String, _ path: String, headers: [String: String],
                      body: Data?) async throws -> Page {
        let response = try await http.send(HTTPRequest(method: method, url: URL(string: stack.httpBase.absoluteString + path)!, headers: headers,
                                                       body: body), timeout: TestTime.scaled(.seconds(20)))
        return Page(status: response.status, headers: response.headers, text: String(decoding: response.body, as: UTF8.self))
    }

    @Test("sign up by form; Today, My plants, a plant with escaped names; Done by htmx; Settings; edit; deletion asks first; strict headers, files, Spanish")
    func pages() async throws {
        let stack = try await GatewayJourneyTests.Stack()
        try await stack.waitForHTTP()
        let own = ["Origin": stack.httpBase.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))]

        let root = try await fetch(stack, "GET", "/")
        #expect(root.status == 303 && root.headers["location"] == "/signin")
        let signInPage = try await fetch(stack, "GET", "/signup")
        #expect(signInPage.status == 200 && signInPage.text.contains("<form method=\"post\" action=\"/signup\""))
        let policy = signInPage.headers["content-security-policy"] ?? ""
        #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'") && !policy.contains("unsafe-inline"))
        #expect(signInPage.headers["x-content-type-options"] == "nosniff" && signInPage.headers["referrer-policy"] == "same-origin")
        #expect(!signInPage.text.contains("<script>"), "no inline script")
        // What an iPhone reads when the app is added to its Home Screen: icon, name, status bar, the page under the notch.
        for tag in [#"<link rel="apple-touch-icon" href="/static/icon-192."#, #"<meta name="apple-mobile-web-app-title" content="PlantGuide">"#,
                    #"<meta name="apple-mobile-web-app-status-bar-style" content="default">"#, "viewport-fit=cover"] {
            #expect(signInPage.text.contains(tag), "\(tag)")
        }

        // The stylesheet and scripts: content-hashed names, a year of caching, gzip when asked for.
        let links = signInPage.text.matches(of: /(?:href|src)="(\/static\/[^"]+\.(?:css|js))"/).map { String($0.output.1) }
        #expect(links.count == 3, "\(links)")
        var compressedTotal = 0
        for link in links {
            let file = try await fetch(stack, "GET", link, headers: ["Accept-Encoding": "gzip"])
            #expect(file.status == 200 && file.headers["content-encoding"] == "gzip", "\(link)")
            #expect(file.headers["cache-control"]?.contains("immutable") == true)
            compressedTotal += Int(file.headers["content-length"] ?? "") ?? file.text.utf8.count
        }
        #expect(compressedTotal < 100_000, "the first visit's script and style: \(compressedTotal) bytes compressed")
        #expect(try await fetch(stack, "GET", "/static/app.00000000.css").status == 404)

        // A form sent from another site is refused; from the app's own page it signs up and sets the cookie.
        let account = ["name": "web-ana", "password": "basil needs water"]
        #expect(try await fetch(stack, "POST", "/signup", form: account, headers: ["Origin": "https://evil.example"]).status == 403)
        let weak = try await fetch(stack, "POST", "/signup", form: ["name": "web-ana", "password": "password"], headers: own)
        #expect(weak.status == 400 && weak.text.contains("id=\"password-error\"") && weak.text.contains("value=\"web-ana\""), "\(weak.text)")
        let signedUp = try await fetch(stack, "POST", "/signup", form: account, headers: own)
        #expect(signedUp.status == 303 && signedUp.headers["location"] == "/today")
        let setCookie = try #require(signedUp.headers["set-cookie"])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
        let cookie = ["Cookie": String(setCookie.prefix { $0 != ";" })]

        // A plant whose name is markup, with a task due today: shown as text, never as markup.
        let plant = #"{"plant": {"scientificName": "Ficus lyrata", "customName": "<script>alert('fig')</script>"}}"#
        let saved = try await http.send(HTTPRequest(method: "PUT", url: URL(string: stack.httpBase.absoluteString + "/v1/plants/p1")!,
                                                    headers: cookie.merging(own) { $1 }.merging(["Content-Type": "application/json"]) { $1 },
                                                    body: Data(plant.utf8)), timeout: TestTime.scaled(.seconds(20)))
        #expect(saved.status == 200, "\(String(decoding: saved.body, as: UTF8.self))")
        let plants = try await fetch(stack, "GET", "/plants", headers: cookie)
        #expect(plants.status == 200 && plants.text.contains("&lt;script&gt;alert(&#39;fig&#39;)&lt;/script&gt;")
                && !plants.text.contains("<script>alert"), "\(plants.text)")
        let today = try await fetch(stack, "GET", "/today", headers: cookie)
        let taskID = try #require(today.text.firstMatch(of: /id="task-([^"]+)"/).map { String($0.output.1) }, "\(today.text)")
        #expect(today.text.contains("Water") && today.text.contains("&lt;script&gt;"))

        // The row names the plant as Today did (the form sends the name back), escaped.
        #expect(today.text.contains(#"<input type="hidden" name="plant" value="&lt;script&gt;alert(&#39;fig&#39;)&lt;/script&gt;">"#), "\(today.text)")
        let byScript = try await fetch(stack, "POST", "/tasks/\(taskID)/complete", form: ["plant": "<script>alert('fig')</script>"],
                                       headers: cookie.merging(own) { $1 }.merging(["HX-Request": "true"]) { $1 })
        #expect(byScript.status == 200 && byScript.text.contains("class=\"task done\"") && byScript.text.contains("&lt;script&gt;alert")
                && !byScript.text.contains("<script>"), "\(byScript.text)")
        // Undo: the done row offers it; by htmx the task's row comes back with its buttons, and Today lists it again.
        #expect(byScript.text.contains("action=\"/tasks/\(taskID)/reopen\"") && byScript.text.contains(">Undo<span"), "\(byScript.text)")
        let undone = try await fetch(stack, "POST", "/tasks/\(taskID)/reopen", form: ["plant": "Fig"],
                                     headers: cookie.merging(own) { $1 }.merging(["HX-Request": "true"]) { $1 })
        #expect(undone.status == 200 && undone.text.hasPrefix("<li id=\"task-\(taskID)\" class=\"task\"") && undone.text.contains(">Done<span")
                && undone.text.contains("due today"), "\(undone.text)")
        #expect(try await fetch(stack, "GET", "/today", headers: cookie).text.contains("id=\"task-\(taskID)\""), "undone: on Today again")
        let redone = try await fetch(stack, "POST", "/tasks/\(taskID)/complete", form: [:], headers: cookie.merging(own) { $1 })
        #expect(redone.status == 303)
        let after = try await fetch(stack, "GET", "/today", headers: cookie)
        #expect(!after.text.contains("id=\"task-\(taskID)\""), "the completed task left Today")

        // Put off to tomorrow, and skipped: each by htmx, and each leaves Today; without script, Today comes back.
        for (id, name) in [("p2", "Monstera deliciosa"), ("p3", "Epipremnum aureum")] {
            let body = #"{"plant": {"scientificName": ""#.appending(name).appending(#""}}"#)
            let put = try await http.send(HTTPRequest(method: "PUT", url: URL(string: stack.httpBase.absoluteString + "/v1/plants/\(id)")!,
                                                      headers: cookie.merging(own) { $1 }.merging(["Content-Type": "application/json"]) { $1 },
                                                      body: Data(body.utf8)), timeout: TestTime.scaled(.seconds(20)))
            #expect(put.status == 200)
        }
        let more = try await fetch(stack, "GET", "/today", headers: cookie)
        let ids = more.text.matches(of: /id="task-([^"]+)"/).map { String($0.output.1) }
        try #require(ids.count >= 2, "\(more.text)")
        #expect(more.text.contains(">Tomorrow<span class=\"visually-hidden\">") && more.text.contains(">Skip<span class=\"visually-hidden\">"))
        let snoozed = try await fetch(stack, "POST", "/tasks/\(ids[0])/snooze", form: [:], headers: cookie.merging(own) { $1 }
            .merging(["HX-Request": "true"]) { $1 })
        #expect(snoozed.status == 200 && snoozed.text.contains("Put off to "), "\(snoozed.text)")
        let skipped = try await fetch(stack, "POST", "/tasks/\(ids[1])/skip", form: [:], headers: cookie.merging(own) { $1 })
        #expect(skipped.status == 303 && skipped.headers["location"] == "/today")
        let rest = try await fetch(stack, "GET", "/today", headers: cookie)
        #expect(!rest.text.contains("id=\"task-\(ids[0])\"") && !rest.text.contains("id=\"task-\(ids[1])\""), "\(rest.text)")
        #expect(try await fetch(stack, "GET", "/tasks/\(ids[0])/skip", headers: cookie).status == 405)

        // Settings: the notify time and a switch per care type; a bad time zone is named beside its field.
        let settingsPage = try await fetch(stack, "GET", "/settings", headers: cookie)
        #expect(settingsPage.text.contains("id=\"type-watering\" name=\"type\" value=\"watering\" checked")
                && !settingsPage.text.contains("value=\"repotting\" checked"), "the defaults: \(settingsPage.text)")
        let changed = try await fetch(stack, "POST", "/settings", formPairs: [("notify_time", "07:30"), ("time_zone", "Europe/Madrid"),
                                                                              ("type", "watering"), ("type", "repotting")],
                                      headers: cookie.merging(own) { $1 })
        #expect(changed.status == 303 && changed.headers["location"] == "/settings?done=saved")
        let reread = try await fetch(stack, "GET", "/settings?done=saved", headers: cookie)
        #expect(reread.text.contains("role=\"status\">Saved.</p>") && reread.text.contains("value=\"07:30\"") && reread.text.contains("value=\"Europe/Madrid\"")
                && reread.text.contains("value=\"repotting\" checked") && !reread.text.contains("value=\"fertilizing\" checked"),
                "\(reread.text)")
        let badZone = try await fetch(stack, "POST", "/settings", formPairs: [("notify_time", "07:30"), ("time_zone", "Mars/Olympus")],
                                      headers: cookie.merging(own) { $1 })
        #expect(badZone.status == 400 && badZone.text.contains("id=\"time_zone-error\""), "\(badZone.text)")

        let spanish = try await fetch(stack, "GET", "/today", headers: cookie.merging(["Accept-Language": "es-ES,es;q=0.9,en;q=0.5"]) { $1 })
        #expect(spanish.text.contains("<html lang=\"es\">") && spanish.text.contains(">Hoy<"))

        // A plant's page: care with its source, next tasks; deleting it asks first, then goes for good.
        let detail = try await fetch(stack, "GET", "/plants/p1", headers: cookie)
        #expect(detail.status == 200 && detail.text.contains("&lt;script&gt;") && detail.text.contains("id=\"care-heading\"")
                && detail.text.contains("class=\"source\""), "\(detail.text)")
        // Editing it: the form holds the stored values (escaped); a refused field is named beside it with what was
        // typed kept; saved, the page shows the new name, where it stands, the notes and the favourite mark.
        #expect(detail.text.contains("href=\"/plants/p1/edit\""))
        let editForm = try await fetch(stack, "GET", "/plants/p1/edit", headers: cookie)
        #expect(editForm.status == 200 && editForm.text.contains("action=\"/plants/p1/edit\"")
                && editForm.text.contains("value=\"&lt;script&gt;alert(&#39;fig&#39;)&lt;/script&gt;\""), "\(editForm.text)")
        let tooLong = try await fetch(stack, "POST", "/plants/p1/edit", form: ["custom_name": "Fig", "notes": String(repeating: "n", count: 10_001)],
                                      headers: cookie.merging(own) { $1 })
        #expect(tooLong.status == 400 && tooLong.text.contains("id=\"notes-error\"") && tooLong.text.contains("aria-invalid=\"true\"")
                && tooLong.text.contains("value=\"Fig\""), "\(tooLong.text)")
        let crossSite = cookie.merging(["Origin": "https://evil.example"]) { $1 }
        #expect(try await fetch(stack, "POST", "/plants/p1/edit", form: ["custom_name": "Stolen"], headers: crossSite).status == 403)
        let edited = try await fetch(stack, "POST", "/plants/p1/edit", form: ["custom_name": "Fiddle <fig>", "location": "Living room",
                                                                             "notes": "Turn it weekly", "favorite": "on"],
                                     headers: cookie.merging(own) { $1 })
        #expect(edited.status == 303 && edited.headers["location"] == "/plants/p1")
        // My plants: the search's words marked (escaped text around them), favourites only, ordered by name.
        let searched = try await fetch(stack, "GET", "/plants?q=lyr&sort=name", headers: cookie)
        #expect(searched.text.contains("<i>Ficus <mark>lyr</mark>ata</i>") && !searched.text.contains("Monstera")
                && searched.text.contains("<option value=\"name\" selected>"), "\(searched.text)")
        let marked = try await fetch(stack, "GET", "/plants?q=%3Cfig", headers: cookie)
        #expect(marked.text.contains("<mark>&lt;fig</mark>&gt;"), "a match inside markup is marked and escaped: \(marked.text)")
        // The whole collection in numbers, as the collection counts them (the fig is a favourite by now).
        #expect(searched.text.contains("Plants: 3 · favourites: 1 · families: 1 · added this month: 3"), "\(searched.text)")
        let favorites = try await fetch(stack, "GET", "/plants?favorites=1", headers: cookie)
        #expect(favorites.text.contains("href=\"/plants/p1\"") && !favorites.text.contains("href=\"/plants/p2\"")
                && favorites.text.contains("name=\"favorites\" value=\"1\" checked"), "\(favorites.text)")
        let renamed = try await fetch(stack, "GET", "/plants/p1", headers: cookie)
        #expect(renamed.text.contains("<h1>Fiddle &lt;fig&gt;</h1>") && renamed.text.contains("Living room") && renamed.text.contains("Turn it weekly")
                && renamed.text.contains("★"), "\(renamed.text)")
        let unmarked = try await fetch(stack, "POST", "/plants/p1/edit", form: ["custom_name": "Fiddle <fig>", "location": "Living room"],
                                       headers: cookie.merging(own) { $1 })
        #expect(unmarked.status == 303)
        let plain = try await fetch(stack, "GET", "/plants/p1", headers: cookie)
        #expect(!plain.text.contains("★") && !plain.text.contains("Turn it weekly"), "unchecked and emptied: \(plain.text)")

        let confirm = try await fetch(stack, "GET", "/plants/p1/delete", headers: cookie)
        #expect(confirm.text.contains("cannot be undone") && confirm.text.contains("action=\"/plants/p1/delete\""))
        #expect(try await fetch(stack, "POST", "/plants/p1/delete", form: [:], headers: cookie.merging(["Origin": "https://evil.example"]) { $1 })
            .status == 403)
        let deleted = try await fetch(stack, "POST", "/plants/p1/delete", form: [:], headers: cookie.merging(own) { $1 })
        #expect(deleted.status == 303 && deleted.headers["location"] == "/plants")
        #expect(try await fetch(stack, "GET", "/plants/p1", headers: cookie).status == 404)

        let signedOut = try await fetch(stack, "POST", "/signout", form: [:], headers: cookie.merging(own) { $1 })
        #expect(signedOut.status == 303 && signedOut.headers["set-cookie"]?.contains("Max-Age=0") == true)
        #expect(signedOut.headers["clear-site-data"] == #""cache", "storage""#, "the kept pages go with the session")
        var refused = false
        for _ in 0..<40 where !refused {  // revocations reach the token cache within a quarter second
            refused = try await fetch(stack, "GET", "/today", headers: cookie).headers["location"] == "/signin"
            if !refused { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(refused, "the signed-out cookie still shows Today")
        await stack.stop()
    }

    @Test("Settings by form: reminders' extras, theme and units, calendar link, households, devices, export, import, delete all with confirmation")
    func settingsSections() async throws {
        let stack = try await GatewayJourneyTests.Stack()
        try await stack.waitForHTTP()
        let origin = stack.httpBase.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let own = ["Origin": origin]
        func signIn(_ path: String, _ name: String) async throws -> [String: String] {
            let answer = try await fetch(stack, "POST", path, form: ["name": name, "password": "basil needs water"], headers: own)
            return ["Cookie": String(try #require(answer.headers["set-cookie"], "\(answer.text)").prefix { $0 != ";" })]
        }
        let cookie = try await signIn("/signup", "web-sam")
        let laptop = try await signIn("/signin", "web-sam")
        let session = cookie.merging(own) { $1 }
        func json(_ method: String, _ path: String, _ body: String) async throws -> Int {
            try await http.send(HTTPRequest(method: method, url: URL(string: origin + path)!,
                                            headers: session.merging(["Content-Type": "application/json"]) { $1 }, body: Data(body.utf8)),
                                timeout: TestTime.scaled(.seconds(20))).status
        }

        // Signed-in devices: this one marked, the other signed out by its own button.
        let page = try await fetch(stack, "GET", "/settings", headers: cookie)
        #expect(page.status == 200 && page.text.contains("id=\"devices-heading\"") && page.text.contains("this device"), "\(page.text)")
        let others = page.text.matches(of: /name="session" value="([^"]+)"/).map { String($0.output.1) }
        #expect(others.count == 1, "one other device: \(page.text)")
        let signedOut = try await fetch(stack, "POST", "/settings/sessions/signout", form: ["session": others.first ?? ""], headers: session)
        #expect(signedOut.status == 303 && signedOut.headers["location"] == "/settings?done=signedOut")
        var refused = false
        for _ in 0..<40 where !refused {  // revocations reach the token cache within a quarter second
            refused = try await fetch(stack, "GET", "/today", headers: laptop).headers["location"] == "/signin"
            if !refused { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(refused, "the signed-out device still shows Today")
        #expect(try await fetch(stack, "GET", "/today", headers: cookie).status == 200, "this device stays signed in")
        #expect(try await fetch(stack, "GET", "/settings/sessions/signout", headers: cookie).headers["allow"] == "POST")

        // The theme: a cookie of this device; the page says it in data-theme and color-scheme.
        let dark = try await fetch(stack, "POST", "/settings/theme", form: ["theme": "dark"], headers: session)
        let themeCookie = try #require(dark.headers["set-cookie"])
        #expect(dark.status == 303 && themeCookie.hasPrefix("plantguide_theme=dark;"))
        let themed = try await fetch(stack, "GET", "/settings?done=theme", headers: ["Cookie": cookie["Cookie"]! + "; plantguide_theme=dark"])
        #expect(themed.text.contains("data-theme=\"dark\"") && themed.text.contains("<meta name=\"color-scheme\" content=\"dark\">")
                && themed.text.contains("id=\"theme-dark\" name=\"theme\" value=\"dark\" checked"), "\(themed.text)")
        #expect(!page.text.contains("data-theme=") && page.text.contains("content=\"light dark\""), "the system's theme by default")

        // Reminders' extras: days before, seasons, hemisphere (a latitude in its middle; a location given through the
        // API kept while its hemisphere is chosen); a count of days out of range or not a number is named beside it.
        func reminders(_ days: String, hemisphere: String) async throws -> Page {
            try await fetch(stack, "POST", "/settings", formPairs: [("notify_time", "08:00"), ("time_zone", "UTC"), ("remind_days_before", days),
                                                                 ("seasonal_adjustment", "on"), ("hemisphere", hemisphere), ("type", "watering")],
                            headers: session)
        }
        #expect(try await reminders("2", hemisphere: "south").headers["location"] == "/settings?done=saved")
        let southern = try await fetch(stack, "GET", "/settings", headers: cookie)
        #expect(southern.text.contains(#"name="remind_days_before" type="number" min="0" max="14" step="1" inputmode="numeric" value="2""#)
                && southern.text.contains("value=\"on\" checked><label for=\"seasonal_adjustment\"")
                && southern.text.contains("value=\"south\" checked"), "\(southern.text)")
        func latitude() async throws -> Double? {
            let read = try await http.get(URL(string: origin + "/v1/settings")!, headers: cookie, timeout: TestTime.scaled(.seconds(20)))
            let json = try JSONSerialization.jsonObject(with: read.body) as? [String: Any]
            return ((json?["settings"] as? [String: Any])?["location"] as? [String: Any])?["latitude"] as? Double
        }
        #expect(try await latitude() == -45)
        let sydney = #"{"settings": {"location": {"latitude": -33.87, "longitude": 151.21}}, "updateMask": "location"}"#
        #expect(try await json("PATCH", "/v1/settings", sydney) == 200)
        _ = try await reminders("2", hemisphere: "south")
        #expect(try await latitude() == -33.87, "the person's own location stays while the hemisphere does")
        for bad in ["20", "two"] {
            let refused = try await reminders(bad, hemisphere: "north")
            #expect(refused.status == 400 && refused.text.contains("id=\"remind_days_before-error\""), "\(bad): \(refused.text)")
        }
        #expect(try await latitude() == -33.87, "a refused form changes nothing")

        // The calendar address: shown once, absolute, works until stopped.
        let made = try await fetch(stack, "POST", "/settings/calendar", form: [:], headers: session)
        let address = try #require(made.text.firstMatch(of: /id="calendar-url" class="wide" value="([^"]+)"/).map { String($0.output.1) },
                                   "\(made.text)")
        #expect(address.hasPrefix(origin + "/v1/calendar/") && address.hasSuffix(".ics"), "\(address)")
        let calendar = try await http.get(URL(string: address)!, headers: [:], timeout: TestTime.scaled(.seconds(20)))
        #expect(calendar.status == 200 && String(decoding: calendar.body, as: UTF8.self).contains("BEGIN:VCALENDAR"))
        let stopped = try await fetch(stack, "POST", "/settings/calendar/revoke", form: [:], headers: session)
        #expect(stopped.status == 303 && stopped.headers["location"] == "/settings?done=calendarRevoked")
        #expect(try await http.get(URL(string: address)!, headers: [:], timeout: TestTime.scaled(.seconds(20))).status == 404)

        // Households: an unknown name is said beside the field with what was typed; a member sees the share.
        let kim = try await signIn("/signup", "web-kim")
        let unknown = try await fetch(stack, "POST", "/settings/shares", form: ["member_name": "no-such-<kim>", "access": "write"], headers: session)
        #expect(unknown.status == 404 && unknown.text.contains("id=\"member_name-error\"") && unknown.text.contains("value=\"no-such-&lt;kim&gt;\""),
                "\(unknown.text)")
        let shared = try await fetch(stack, "POST", "/settings/shares", form: ["member_name": "web-kim", "access": "write"], headers: session)
        #expect(shared.status == 303 && shared.headers["location"] == "/settings?done=shared")
        #expect(try await fetch(stack, "GET", "/settings", headers: cookie).text.contains("web-kim · see and change"))
        #expect(try await fetch(stack, "GET", "/settings", headers: kim).text.contains("<li>web-sam · see and change</li>"))
        let unshared = try await fetch(stack, "POST", "/settings/shares/revoke", form: ["member_name": "web-kim"], headers: session)
        let kimsAfter = try await fetch(stack, "GET", "/settings", headers: kim)
        #expect(unshared.status == 303 && !kimsAfter.text.contains("web-sam"), "\(kimsAfter.text)")

        // Your data: download, delete all (asked first, refused from another site), bring the download back.
        let plant = #"{"plant": {"scientificName": "Ficus lyrata", "customName": "Fig"}}"#
        let put = try await http.send(HTTPRequest(method: "PUT", url: URL(string: origin + "/v1/plants/p1")!,
                                                  headers: session.merging(["Content-Type": "application/json"]) { $1 }, body: Data(plant.utf8)),
                                      timeout: TestTime.scaled(.seconds(20)))
        #expect(put.status == 200)
        // Units of this device: the care's temperatures in °F.
        let units = try await fetch(stack, "POST", "/settings/theme", form: ["units": "imperial"], headers: session)
        #expect(units.headers["set-cookie"]?.hasPrefix("plantguide_units=imperial;") == true, "\(units.headers)")
        let inFahrenheit = try await fetch(stack, "GET", "/plants/p1", headers: ["Cookie": cookie["Cookie"]! + "; plantguide_units=imperial"])
        let inCelsius = try await fetch(stack, "GET", "/plants/p1", headers: cookie)
        #expect(inFahrenheit.text.contains(" °F") && !inFahrenheit.text.contains(" °C") && inCelsius.text.contains(" °C"), "\(inFahrenheit.text)")
        let download = try await http.get(URL(string: origin + "/settings/export")!, headers: cookie, timeout: TestTime.scaled(.seconds(20)))
        #expect(download.status == 200 && download.headers["content-type"] == "application/x-tar"
                && download.headers["content-disposition"]?.hasPrefix("attachment; filename=\"plantguide-") == true, "\(download.headers)")
        let confirm = try await fetch(stack, "GET", "/settings/delete-all", headers: cookie)
        #expect(confirm.text.contains("cannot be undone") && confirm.text.contains("action=\"/settings/delete-all\""))
        let foreign = cookie.merging(["Origin": "https://evil.example"]) { $1 }
        #expect(try await fetch(stack, "POST", "/settings/delete-all", form: [:], headers: foreign).status == 403)
        let erased = try await fetch(stack, "POST", "/settings/delete-all", form: [:], headers: session)
        #expect(erased.status == 303 && erased.headers["location"]?.hasPrefix("/settings?done=deletedAll&plants=1&") == true, "\(erased.headers)")
        let told = try await fetch(stack, "GET", erased.headers["location"] ?? "/settings", headers: cookie)
        #expect(told.text.contains("Deleted. Plants: 1; photos: 0; tasks: "), "\(told.text)")
        #expect(try await fetch(stack, "GET", "/plants", headers: cookie).text.contains("No plants yet."))
        let junk = try await post(stack, "/settings/import", multipart([], file: Data("not a tar".utf8), field: "archive"), headers: session)
        #expect(junk.status == 400 && junk.text.contains("id=\"archive-error\"") && junk.text.contains("aria-invalid=\"true\""), "\(junk.text)")
        let brought = try await post(stack, "/settings/import", multipart([], file: download.body, field: "archive"), headers: session)
        #expect(brought.status == 303 && brought.headers["location"]?.hasPrefix("/settings?done=imported&plants=1&") == true, "\(brought.headers)")
        #expect(try await fetch(stack, "GET", "/plants", headers: cookie).text.contains("Fig"))
        await stack.stop()
    }

    /// A multipart/form-data body of `fields` and, under `field`, `file` (an empty file part when nil, as a browser
    /// sends an input left empty).
    private func multipart(_ fields: [(String, String)], photo file: Data?) -> (body: Data, contentType: String) {
        multipart(fields, file: file, field: "photo")
    }

    private func multipart(_ fields: [(String, String)], file: Data?, field: String) -> (body: Data, contentType: String) {
        let boundary = "plantguide-\(UUID().uuidString)"
        var body = Data()
        for (name, value) in fields {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        let filename = file == nil ? "" : field == "photo" ? "leaf.jpg" : "\(field).tar"
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"\(filename)\"\r\n".utf8))
        body.append(Data("Content-Type: \(file == nil ? "application/octet-stream" : field == "photo" ? "image/jpeg" : "application/x-tar")\r\n\r\n".utf8))
        body.append(file ?? Data())
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    private func post(_ stack: GatewayJourneyTests.Stack, _ path: String, _ form: (body: Data, contentType: String),
                      headers: [String: String]) async throws -> Page {
        try await send(stack, "POST", path, headers: headers.merging(["Content-Type": form.contentType]) { $1 }, body: form.body)
    }

    @Test("Identify by form: camera and file inputs, candidates with confidence and source; Add keeps photo, plans care, shows history; add a photo")
    func identify() async throws {
        let stack = try await GatewayJourneyTests.Stack()
        try await stack.waitForHTTP()
        let own = ["Origin": stack.httpBase.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))]
        let signedUp = try await fetch(stack, "POST", "/signup", form: ["name": "web-ida", "password": "basil needs water"], headers: own)
        let cookie = ["Cookie": String(try #require(signedUp.headers["set-cookie"]).prefix { $0 != ";" })]
        let session = cookie.merging(own) { $1 }

        let page = try await fetch(stack, "GET", "/identify", headers: cookie)
        #expect(page.status == 200 && page.text.contains("enctype=\"multipart/form-data\"") && page.text.contains("capture=\"environment\""))
        #expect(page.text.contains("image/heic") && page.text.contains("aria-current=\"page\">Identify"))

        // No photo: the page again, the error beside the field.
        let empty = try await post(stack, "/identify", multipart([], photo: nil), headers: session)
        #expect(empty.status == 400 && empty.text.contains("id=\"photo-error\"") && empty.text.contains("aria-invalid=\"true\""), "\(empty.text)")
        // Not a photo: what the identification service said, as a field error.
        let junk = try await post(stack, "/identify", multipart([], photo: Data("not an image".utf8)), headers: session)
        #expect(junk.status == 400 && junk.text.contains("id=\"photo-error\""), "\(junk.status) \(junk.text)")

        let photo = try TestImages.jpeg(TestImages.gradient(width: 320, height: 240))
        let results = try await post(stack, "/identify", multipart([], photo: photo), headers: session)
        #expect(results.status == 200 && results.text.contains("<i>Hibiscus rosa-sinensis</i>"), "\(results.text)")
        #expect(results.text.contains("% sure") && results.text.contains("Pl@ntNet") && results.text.contains("choose it again"))
        let fragment = try await post(stack, "/identify", multipart([], photo: photo), headers: session.merging(["HX-Request": "true"]) { $1 })
        #expect(fragment.status == 200 && fragment.text.hasPrefix("<div id=\"results\"") && !fragment.text.contains("<html"))

        // The fields the page holds for each candidate, sent back with the photo and the choice of the first.
        var fields = results.text.matches(of: /<input type="hidden" name="([^"]+)" value="([^"]*)">/).map { (String($0.output.1), String($0.output.2)) }
        #expect(fields.contains { $0.0 == "candidate-0-scientificName" && $0.1 == "Hibiscus rosa-sinensis" }, "\(fields)")
        let refused = try await post(stack, "/identify/add", multipart(fields + [("choice", "9")], photo: photo), headers: session)
        #expect(refused.status == 400 && refused.text.contains("Choose one of the candidates"))
        fields.append(("choice", "0"))
        let added = try await post(stack, "/identify/add", multipart(fields, photo: photo), headers: session)
        let location = try #require(added.headers["location"], "\(added.status) \(added.text)")
        #expect(added.status == 303 && location.hasPrefix("/plants/"))
        let plantPage = try await fetch(stack, "GET", location, headers: cookie)
        #expect(plantPage.status == 200 && plantPage.text.contains("Hibiscus rosa-sinensis"))
        // The photo on the plant's page and on its card in My plants, served to its owner only.
        let image = try #require(plantPage.text.firstMatch(of: /<img src="(\/v1\/photos\/[0-9a-f]{64}\?size=1024)"[^>]* alt="Photo of ([^"]+)"/),
                                 "\(plantPage.text)")
        let thumbnail = try await http.send(HTTPRequest(method: "GET", url: URL(string: stack.httpBase.absoluteString + image.output.1)!,
                                                        headers: cookie), timeout: TestTime.scaled(.seconds(20)))
        #expect(thumbnail.status == 200 && thumbnail.headers["content-type"] == "image/jpeg" && thumbnail.body.starts(with: [0xFF, 0xD8]))
        // Its identification in the plant's history: when, by what, how sure.
        #expect(plantPage.text.contains("id=\"history-heading\"") && plantPage.text.contains(" · Pl@ntNet: <i>Hibiscus rosa-sinensis</i>, ")
                && plantPage.text.contains("% sure</li>"), "\(plantPage.text)")
        // A second photo added from the plant's page; a file that is no photo is refused beside the field.
        let refusedPhoto = try await post(stack, location + "/photo", multipart([], photo: Data("not an image".utf8)), headers: session)
        #expect(refusedPhoto.status == 400 && refusedPhoto.text.contains("id=\"photo-error\"") && refusedPhoto.text.contains("aria-invalid=\"true\""),
                "\(refusedPhoto.status) \(refusedPhoto.text)")
        let second = try TestImages.jpeg(TestImages.gradient(width: 240, height: 320))
        let addedPhoto = try await post(stack, location + "/photo", multipart([], photo: second), headers: session)
        #expect(addedPhoto.status == 303 && addedPhoto.headers["location"] == location, "\(addedPhoto.status) \(addedPhoto.text)")
        let withTwo = try await fetch(stack, "GET", location, headers: cookie)
        #expect(withTwo.text.matches(of: /<img src="\/v1\/photos\/[0-9a-f]{64}\?size=1024"/).count == 2, "\(withTwo.text)")
        let card = try await fetch(stack, "GET", "/plants", headers: cookie)
        #expect(card.text.contains(#"<img src="/v1/photos/"#) && card.text.contains("?size=256"), "\(card.text)")
        let other = try await fetch(stack, "POST", "/signup", form: ["name": "web-eve", "password": "mint needs water"], headers: own)
        let otherCookie = ["Cookie": String(try #require(other.headers["set-cookie"]).prefix { $0 != ";" })]
        #expect(try await fetch(stack, "GET", String(image.output.1), headers: otherCookie).status != 200, "another person's photo")
        let details = try await fetch(stack, "GET", "/v1" + location, headers: cookie)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(details.text.utf8)) as? [String: Any])
        let plant = json["plant"] as? [String: Any] ?? [:]
        #expect((plant["photos"] as? [Any])?.count == 2 && (json["upcomingTasks"] as? [Any])?.isEmpty == false, "\(details.text)")
        #expect((json["identifications"] as? [[String: Any]])?.first?["source"] as? String == "IDENTIFICATION_SOURCE_PLANTNET", "\(details.text)")

        let byScript = try await post(stack, "/identify/add", multipart(fields, photo: nil), headers: session.merging(["HX-Request": "true"]) { $1 })
        #expect(byScript.status == 200 && byScript.headers["hx-redirect"]?.hasPrefix("/plants/") == true, "\(byScript.headers)")
        // From another site: refused before anything is read.
        let foreign = cookie.merging(["Origin": "https://evil.example"]) { $1 }
        #expect(try await post(stack, "/identify", multipart([], photo: photo), headers: foreign).status == 403)
        await stack.stop()
    }
}
