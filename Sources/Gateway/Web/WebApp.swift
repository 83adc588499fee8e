import Foundation
import Hummingbird
import Mustache
import PlantGuideProtos
import PlantGuideRPC
import SwiftProtobuf

/// PlantGuide's face for people: pages rendered on the server (swift-mustache, every value HTML-escaped) from the
/// same handlers the JSON API serves, enhanced by htmx and a little script of our own, on the gateway's origin.
///
/// A page works without script: forms post to the page routes, which answer with a redirect or the page again
/// with its errors beside the fields. The session is the HttpOnly cookie of ``BrowserSession``, and every post must
/// come from the gateway's own pages (its `Origin`), so another site can neither read nor change anything. Pages
/// carry a strict Content-Security-Policy: scripts, styles and connections from this origin only, no inline script,
/// no framing.
struct WebApp: Sendable {
    private let assets: WebAssets
    private let strings: WebStrings
    private let templates: MustacheLibrary
    private let router: RPCRouter
    private let browser: BrowserSession
    private let signUp: SignUpPolicy
    private let handlerExecutor: (any TaskExecutor)?
    private let timeout: Duration

    private static let pages: Set<String> = ["/", "/signin", "/signup", "/signout", "/today", "/plants", "/settings", "/manifest.webmanifest",
                                                   "/sw.js"]

    /// - Throws: when a template, stylesheet, script or string catalog is missing from the build or malformed.
    init(router: RPCRouter, browser: BrowserSession, signUp: SignUpPolicy, handlerExecutor: (any TaskExecutor)?,
         timeout: Duration = .seconds(30)) throws {
        assets = try WebAssets.load()
        strings = try WebStrings.load()
        var loaded: [String: MustacheTemplate] = [:]
        for name in ["head", "foot", "signin", "today", "task-done", "plants", "plant", "delete", "settings", "error"] {
            guard let url = Bundle.module.url(forResource: name, withExtension: "mustache", subdirectory: "WebAssets/templates") else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "\(name).mustache"])
            }
            loaded[name] = try MustacheTemplate(string: String(contentsOf: url, encoding: .utf8))
        }
        templates = MustacheLibrary(templates: loaded)
        self.router = router
        self.browser = browser
        self.signUp = signUp
        self.handlerExecutor = handlerExecutor
        self.timeout = timeout
    }

    /// Whether `path` is one of the app's pages or files (the JSON API and the rest of the front keep the others).
    func serves(_ path: String) -> Bool {
        Self.pages.contains(path) || path.hasPrefix("/static/") || Self.completedTaskID(path) != nil || Self.plantPage(path) != nil
    }

    /// The route `path` belongs to, for spans and logs: never an id.
    static func route(of path: String) -> String {
        if path.hasPrefix("/static/") { return "/static/{file}" }
        if completedTaskID(path) != nil { return "/tasks/{id}/complete" }
        if let plant = plantPage(path) { return plant.deleting ? "/plants/{id}/delete" : "/plants/{id}" }
        return path
    }

    /// The page or file for `request`; ``serves(_:)`` said the path is the app's.
    func response(to request: Request) async -> Response {
        let path = request.uri.path
        if path.hasPrefix("/static/") { return asset(path, acceptEncoding: request.headers[.acceptEncoding] ?? "") }
        // The manifest and the service worker keep their names, so a browser asks for them again each time.
        if path == "/manifest.webmanifest" { return Self.file(assets.manifest(name: "PlantGuide"), type: "application/manifest+json") }
        if path == "/sw.js" { return Self.file(assets.serviceWorker, type: "text/javascript; charset=utf-8") }
        let page = PageRequest(request: request, strings: strings.catalog(acceptLanguage: request.headers[.acceptLanguage]))
        if request.method == .post, let refusal = browser.forgeryRefusal(request) {
            return render("error", page, status: .forbidden, ["title": page.strings.format("somethingWrong"), "message": refusal])
        }
        switch (request.method, path) {
        case (.get, "/"): return Self.redirect(page.token == nil ? "/signin" : "/today")
        case (.get, "/signin"): return page.token == nil ? signInPage(page, signingUp: false) : Self.redirect("/today")
        case (.get, "/signup"): return page.token == nil ? signInPage(page, signingUp: true) : Self.redirect("/today")
        case (.post, "/signin"): return await signIn(page, form: await Self.form(request), signingUp: false)
        case (.post, "/signup"): return await signIn(page, form: await Self.form(request), signingUp: true)
        case (.post, "/signout"): return await signOut(page)
        case (.get, "/today"): return await today(page)
        case (.get, "/plants"): return await plants(page, query: request.uri.queryParameters["q"].map(String.init) ?? "")
        case (.get, "/settings"): return await settings(page, saved: request.uri.queryParameters["saved"] != nil)
        case (.post, "/settings"): return await saveSettings(page, form: await Self.formFields(request))
        case (.get, _) where Self.plantPage(path)?.deleting == false: return await plant(page, id: Self.plantPage(path)!.id)
        case (.get, _) where Self.plantPage(path)?.deleting == true: return await confirmDeletion(page, id: Self.plantPage(path)!.id)
        case (.post, _) where Self.plantPage(path)?.deleting == true: return await delete(page, id: Self.plantPage(path)!.id)
        case (.post, _) where Self.completedTaskID(path) != nil:
            return await complete(page, taskID: Self.completedTaskID(path)!, byScript: request.headers[Self.htmxRequest] == "true")
        default:
            var answer = render("error", page, status: .methodNotAllowed,
                                ["title": page.strings.format("somethingWrong"), "message": "\(request.method) \(path)"])
            answer.headers[.allow] = path.hasSuffix("/complete") || path == "/signout" ? "POST" : "GET, POST"
            return answer
        }
    }

    // MARK: Pages

    private func signInPage(_ page: PageRequest, signingUp: Bool, status: HTTPResponse.Status = .ok, name: String = "",
                            invitation: String = "", error: RPCError? = nil) -> Response {
        let fields = Dictionary(error?.details.fieldViolations.map { ($0.field, $0.description) } ?? []) { first, _ in first }
        let strings = page.strings
        var values: [String: Any] = [
            "title": strings.format(signingUp ? "signUp" : "signIn"), "heading": strings.format(signingUp ? "signUp" : "signIn"),
            "action": signingUp ? "/signup" : "/signin", "submit": strings.format(signingUp ? "signUp" : "signIn"),
            "name": name, "invitation": invitation, "askInvitation": signingUp && signUp == .invite,
            "passwordAutocomplete": signingUp ? "new-password" : "current-password",
            "otherPrompt": strings.format(signingUp ? "haveAccount" : "noAccountYet"),
            "otherLink": signingUp ? "/signin" : "/signup", "otherAction": strings.format(signingUp ? "signIn" : "signUp"),
        ]
        if let nameError = fields["name"] { values["nameError"] = nameError }
        if let passwordError = fields["password"] { values["passwordError"] = passwordError }
        if let error, fields["name"] == nil, fields["password"] == nil { values["error"] = error.message }
        return render("signin", page, status: status, values)
    }

    private func signIn(_ page: PageRequest, form: [String: String], signingUp: Bool) async -> Response {
        let (name, password, invitation) = (form["name"] ?? "", form["password"] ?? "", form["invitation"] ?? "")
        let outcome: Result<String, RPCError>
        if signingUp {
            outcome = await call(Plantguide_Gateway_V1_GatewayService.createAccount, .with {
                $0.name = name
                $0.password = password
                $0.invitation = invitation
            }, token: nil).map(\.token)
        } else {
            outcome = await call(Plantguide_Gateway_V1_GatewayService.createSession, .with {
                $0.name = name
                $0.password = password
            }, token: nil).map(\.token)
        }
        switch outcome {
        case .success(let token):
            var answer = Self.redirect("/today")
            answer.headers[.setCookie] = browser.setCookie(token)
            return answer
        case .failure(let error):
            var answer = signInPage(page, signingUp: signingUp, status: Self.status(of: error), name: name, invitation: invitation, error: error)
            if let delay = error.details.retryDelay { answer.headers[.retryAfter] = String(Int(delay.components.seconds) + 1) }
            return answer
        }
    }

    private func signOut(_ page: PageRequest) async -> Response {
        if page.token != nil {
            _ = await call(Plantguide_Gateway_V1_GatewayService.deleteSession, .with { $0.sessionID = "current" }, token: page.token)
        }
        var answer = Self.redirect("/signin")
        answer.headers[.setCookie] = browser.clearCookie()
        return answer
    }

    private func today(_ page: PageRequest) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        // Overdue and today's, by the person's own time zone, which scheduling keeps.
        async let overdueCall = call(Plantguide_Gateway_V1_GatewayService.listTasks, .with { $0.view = .overdue }, token: page.token)
        async let todayCall = call(Plantguide_Gateway_V1_GatewayService.listTasks, .with { $0.view = .today }, token: page.token)
        let (overdue, dueToday) = await (overdueCall, todayCall)
        guard case .success(let late) = overdue else { return failurePage(page, overdue) }
        guard case .success(let current) = dueToday else { return failurePage(page, dueToday) }
        let strings = page.strings
        let names = late.plantNames.merging(current.plantNames) { first, _ in first }
        let lateIDs = Set(late.tasks.map(\.id))
        let due = late.tasks.map { ($0, true) } + current.tasks.filter { !lateIDs.contains($0.id) }.map { ($0, false) }
        let tasks: [[String: Any]] = due.map { task, isLate in
            [
                "id": task.id, "what": Self.verb(task.type, strings), "plant": names[task.plantID] ?? task.plantID,
                "when": isLate ? strings.format("overdueSince", ["date": Self.day(task.dueDate, strings)]) : strings.format("dueToday"),
                "overdue": isLate,
            ]
        }
        let badge = strings.format("overdueAndToday", ["overdue": "\(current.badge.overdue)", "today": "\(current.badge.today)"])
        return render("today", page, ["title": strings.format("today"), "onToday": true, "tasks": tasks, "hasTasks": !tasks.isEmpty,
                                      "badge": badge])
    }

    private func plants(_ page: PageRequest, query: String) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let listed = await call(Plantguide_Gateway_V1_GatewayService.listPlants, .with {
            $0.filter.query = query
            $0.filter.pageSize = 100
        }, token: page.token)
        guard case .success(let answer) = listed else { return failurePage(page, listed) }
        let plants: [[String: Any]] = answer.page.plants.map { plant in
            ["id": plant.id, "name": Self.displayName(plant), "scientificName": plant.scientificName, "favorite": plant.favorite]
        }
        return render("plants", page, ["title": page.strings.format("myPlants"), "onPlants": true, "plants": plants, "hasPlants": !plants.isEmpty,
                                       "query": query, "count": page.strings.format("plantCount", ["count": "\(answer.page.totalMatching)"])])
    }

    private func plant(_ page: PageRequest, id: String) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let read = await call(Plantguide_Gateway_V1_GatewayService.getPlantDetails, .with { $0.plantID = id }, token: page.token)
        guard case .success(let details) = read else { return failurePage(page, read) }
        let strings = page.strings
        let plant = details.plant
        var values: [String: Any] = [
            "title": Self.displayName(plant), "id": plant.id, "name": Self.displayName(plant), "scientificName": plant.scientificName,
            "favorite": plant.favorite, "hasCare": details.hasCareInfo,
            "tasks": details.upcomingTasks.prefix(5).map { ["what": Self.verb($0.type, strings), "due": Self.day($0.dueDate, strings)] },
            "hasTasks": !details.upcomingTasks.isEmpty,
        ]
        if !plant.notes.isEmpty { values["notes"] = plant.notes }
        if details.hasCareInfo {
            let care = details.careInfo
            var facts: [[String: String]] = []
            if care.watering.intervalDays > 0 {
                facts.append(["label": strings.format("fact.watering"), "value": strings.format("everyDays", ["days": "\(care.watering.intervalDays)"])])
            }
            let light: String? = switch care.light.level {
            case .fullShade: "light.fullShade"
            case .partialShade: "light.partialShade"
            case .partialSun: "light.partialSun"
            case .fullSun: "light.fullSun"
            default: nil
            }
            if let light { facts.append(["label": strings.format("fact.light"), "value": strings.format(light)]) }
            if care.hasTemperature {
                facts.append(["label": strings.format("fact.temperature"), "value": strings.format("temperatureRange", [
                    "min": String(format: "%.0f", care.temperature.minCelsius), "max": String(format: "%.0f", care.temperature.maxCelsius),
                ])])
            }
            if !care.soil.isEmpty { facts.append(["label": strings.format("fact.soil"), "value": care.soil]) }
            values["facts"] = facts
            let source = switch care.source {
            case .trefle: "source.trefle"
            case .cache: "source.cache"
            case .staleCache: "source.staleCache"
            case .catalog: "source.catalog"
            default: "source.default"
            }
            values["source"] = strings.format(source)
        }
        return render("plant", page, values.merging(["onPlants": true]) { $1 })
    }

    private func confirmDeletion(_ page: PageRequest, id: String) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let read = await call(Plantguide_Gateway_V1_GatewayService.getPlantDetails, .with { $0.plantID = id }, token: page.token)
        guard case .success(let details) = read else { return failurePage(page, read) }
        return render("delete", page, ["title": page.strings.format("deletePlant"), "id": id, "onPlants": true,
                                       "question": page.strings.format("deleteQuestion", ["name": Self.displayName(details.plant)])])
    }

    private func delete(_ page: PageRequest, id: String) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let deleted = await call(Plantguide_Gateway_V1_GatewayService.deletePlant, .with { $0.plantID = id }, token: page.token)
        guard case .success = deleted else { return failurePage(page, deleted) }
        return Self.redirect("/plants")
    }

    /// A due date ("2026-11-27") as the reader's language writes a day ("Fri, 27 Nov", "vie, 27 nov").
    private static func day(_ isoDate: String, _ strings: [String: String]) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = isoDate.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else { return isoDate }
        var style = Date.FormatStyle(date: .abbreviated, time: .omitted, locale: Locale(identifier: strings["language"] ?? "en"),
                                     calendar: calendar, timeZone: calendar.timeZone)
        style = style.weekday(.abbreviated)
        return date.formatted(style)
    }

    /// What a person calls the plant: their own name for it, else its common name, else its scientific name.
    private static func displayName(_ plant: Plantguide_Collection_V1_Plant) -> String {
        plant.customName.isEmpty ? (plant.commonNames.first ?? plant.scientificName) : plant.customName
    }

    /// The care types a person can be reminded of, in the order the settings list them, with their catalog keys.
    private static let careTypes: [(type: Plantguide_Scheduling_V1_TaskType, key: String)] = [
        (.watering, "watering"), (.fertilizing, "fertilizing"), (.pruning, "pruning"), (.repotting, "repotting"),
        (.pestControl, "pestControl"), (.rotation, "rotation"), (.harvest, "harvest"),
    ]
    /// Scheduling's defaults for a type the person never set (see Preferences.task_types).
    private static let onByDefault: Set<Plantguide_Scheduling_V1_TaskType> = [.watering, .fertilizing, .harvest]

    private func settings(_ page: PageRequest, saved: Bool, status: HTTPResponse.Status = .ok, error: RPCError? = nil,
                          shown: Plantguide_Scheduling_V1_Preferences? = nil) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        var preferences = shown
        if preferences == nil {
            let read = await call(Plantguide_Gateway_V1_GatewayService.getSettings, .init(), token: page.token)
            guard case .success(let answer) = read else { return failurePage(page, read) }
            preferences = answer.settings
        }
        let current = preferences ?? .init()
        let chosen = Dictionary(current.taskTypes.map { ($0.type, $0.enabled) }) { _, last in last }
        let types: [[String: Any]] = Self.careTypes.map { care in
            ["key": care.key, "label": page.strings.format("type.\(care.key)"), "on": chosen[care.type] ?? Self.onByDefault.contains(care.type)]
        }
        var values: [String: Any] = [
            "title": page.strings.format("settings"), "onSettings": true, "saved": saved, "types": types,
            "notifyTime": current.notifyTime.isEmpty ? "08:00" : current.notifyTime, "timeZone": current.timeZone.isEmpty ? "UTC" : current.timeZone,
        ]
        // Violations name fields by their path ("settings.time_zone"): the last part is the form's field.
        let violations = error?.details.fieldViolations.map { ($0.field.split(separator: ".").last.map(String.init) ?? $0.field, $0.description) }
        let fields = Dictionary(violations ?? []) { first, _ in first }
        if let message = fields["notify_time"] { values["notifyTimeError"] = message }
        if let message = fields["time_zone"] { values["timeZoneError"] = message }
        if let error, fields["notify_time"] == nil, fields["time_zone"] == nil { values["error"] = error.message }
        return render("settings", page, status: status, values)
    }

    private func saveSettings(_ page: PageRequest, form: [(String, String)]) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let checked = Set(form.filter { $0.0 == "type" }.map(\.1))
        let first = Dictionary(form) { first, _ in first }
        let preferences = Plantguide_Scheduling_V1_Preferences.with { preferences in
            preferences.notifyTime = first["notify_time"] ?? ""
            preferences.timeZone = (first["time_zone"] ?? "").trimmingCharacters(in: .whitespaces)
            preferences.taskTypes = Self.careTypes.map { care in .with { $0.type = care.type; $0.enabled = checked.contains(care.key) } }
        }
        let saved = await call(Plantguide_Gateway_V1_GatewayService.putSettings, .with {
            $0.settings = preferences
            $0.updateMask.paths = ["notify_time", "time_zone", "task_types"]
        }, token: page.token)
        switch saved {
        case .success: return Self.redirect("/settings?saved=1")
        case .failure(let error) where error.code == .invalidArgument:
            return await settings(page, saved: false, status: .badRequest, error: error, shown: preferences)
        case .failure: return failurePage(page, saved)
        }
    }

    private func complete(_ page: PageRequest, taskID: String, byScript: Bool) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let completed = await call(Plantguide_Gateway_V1_GatewayService.completeTasks, .with { $0.taskIds = [taskID] }, token: page.token)
        guard case .success(let answer) = completed else { return failurePage(page, completed) }
        guard byScript, let task = answer.completed.first else { return Self.redirect("/today") }
        // htmx swaps the task's row for this one.
        let row = templates.render(["id": task.id, "what": Self.verb(task.type, page.strings), "plant": task.plantID,
                                    "strings": page.strings], withTemplate: "task-done") ?? ""
        return Self.html(row, status: .ok)
    }

    private func failurePage<Value>(_ page: PageRequest, _ outcome: Result<Value, RPCError>) -> Response {
        guard case .failure(let error) = outcome else { return Self.redirect("/") }
        if error.code == .unauthenticated {
            var answer = Self.redirect("/signin")
            answer.headers[.setCookie] = browser.clearCookie()
            return answer
        }
        return render("error", page, status: Self.status(of: error), ["title": page.strings.format("somethingWrong"), "message": error.message])
    }

    // MARK: Helpers

    /// What a page needs of its request: the session's token and the strings of the reader's language.
    private struct PageRequest {
        let token: String?
        let strings: [String: String]

        init(request: Request, strings: [String: String]) {
            token = BrowserSession.token(in: request)
            self.strings = strings
        }
    }

    private func render(_ template: String, _ page: PageRequest, status: HTTPResponse.Status = .ok, _ values: [String: Any]) -> Response {
        var context = values
        context["strings"] = page.strings
        context["assets"] = assets.links
        context["signedIn"] = page.token != nil
        return Self.html(templates.render(context, withTemplate: template) ?? "", status: status)
    }

    /// Calls one of the gateway's own methods, in process, as the session's owner.
    private func call<Request: SwiftProtobuf.Message, Answer: SwiftProtobuf.Message>(
        _ method: RPCMethod<Request, Answer>, _ request: Request, token: String?
    ) async -> Result<Answer, RPCError> {
        do {
            let outcome = await router.invoke(method.path, payload: try request.serializedData(),
                                              metadata: token.map { ["authorization": "Bearer \($0)"] } ?? [:], timeout: timeout,
                                              on: handlerExecutor)
            if let error = outcome.error { return .failure(error) }
            return .success(try Answer(serializedBytes: outcome.payload ?? Data()))
        } catch {
            return .failure(RPCError(.internal, "the answer could not be read"))
        }
    }

    private func asset(_ path: String, acceptEncoding: String) -> Response {
        guard let asset = assets.byPath[path] else { return Self.html("", status: .notFound) }
        var headers: HTTPFields = [.contentType: asset.contentType, .cacheControl: "public, max-age=31536000, immutable",
                                   .xContentTypeOptions: "nosniff", .vary: "Accept-Encoding"]
        var body = asset.body
        if let gzipped = asset.gzipped, acceptEncoding.lowercased().contains("gzip") {
            headers[.contentEncoding] = "gzip"
            body = gzipped
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The strict headers every page carries.
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

    private static func html(_ body: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [
            .contentType: "text/html; charset=utf-8", .contentSecurityPolicy: contentSecurityPolicy, referrerPolicy: "same-origin",
            .xContentTypeOptions: "nosniff", .cacheControl: "no-store", .vary: "Accept-Language, Cookie",
        ], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    private static func file(_ body: Data, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache", .xContentTypeOptions: "nosniff"],
                 body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    private static func status(of error: RPCError) -> HTTPResponse.Status {
        HTTPResponse.Status(code: HTTPStatusMapping.status(for: error.code))
    }

    /// `/plants/{id}` (`deleting` false) or `/plants/{id}/delete` (true).
    private static func plantPage(_ path: String) -> (id: String, deleting: Bool)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3 || (parts.count == 4 && parts[3] == "delete"), parts[1] == "plants", !parts[2].isEmpty,
              let id = String(parts[2]).removingPercentEncoding else { return nil }
        return (id, parts.count == 4)
    }

    /// The task id of `/tasks/{id}/complete`.
    private static func completedTaskID(_ path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[1] == "tasks", parts[3] == "complete", !parts[2].isEmpty else { return nil }
        return String(parts[2]).removingPercentEncoding
    }

    /// A form's fields (`application/x-www-form-urlencoded`, at most 64 KiB), the first value of each name.
    private static func form(_ request: Request) async -> [String: String] {
        Dictionary(await formFields(request)) { first, _ in first }
    }

    /// A form's fields in order, repeated names (checkboxes) included.
    private static func formFields(_ request: Request) async -> [(String, String)] {
        guard let buffer = try? await request.body.collect(upTo: 64 << 10) else { return [] }
        return String(buffer: buffer).split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            guard let key = parts.first else { return nil }
            return (key, parts.count > 1 ? parts[1] : "")
        }
    }

    private static func verb(_ type: Plantguide_Scheduling_V1_TaskType, _ strings: [String: String]) -> String {
        let key = switch type {
        case .watering: "task.watering"
        case .fertilizing: "task.fertilizing"
        case .pruning: "task.pruning"
        case .repotting: "task.repotting"
        case .pestControl: "task.pestControl"
        case .rotation: "task.rotation"
        case .harvest: "task.harvest"
        default: "task.other"
        }
        return strings.format(key)
    }

    private static let htmxRequest = HTTPFields.Element.Name("HX-Request")!
    private static let referrerPolicy = HTTPFields.Element.Name("Referrer-Policy")!
}
