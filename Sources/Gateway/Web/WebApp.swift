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
/// no framing. Each screen's handlers are in an extension of their own (`WebApp+Today.swift`, ...).
struct WebApp: Sendable {
    let assets: WebAssets
    let strings: WebStrings
    let templates: MustacheLibrary
    let router: RPCRouter
    let browser: BrowserSession
    let signUp: SignUpPolicy
    let handlerExecutor: (any TaskExecutor)?
    let timeout: Duration
    /// The largest photo form Identify reads (the HTTP front's body limit).
    let maxUploadBytes: Int
    /// Language → a JSON object of each task type's wire name ("TASK_TYPE_WATERING") and its verb ("Water"), for
    /// the page's script to name the reminders that arrive live.
    let verbs: [String: String]

    /// The app's paths besides a plant's pages, task completions and files.
    private static let pages: Set<String> = [
        "/", "/signin", "/signup", "/signout", "/today", "/identify", "/identify/add", "/plants", "/settings", "/manifest.webmanifest",
        "/sw.js", "/settings/theme", "/settings/calendar", "/settings/calendar/revoke", "/settings/shares", "/settings/shares/revoke",
        "/settings/sessions/signout", "/settings/sessions/others", "/settings/export", "/settings/import", "/settings/delete-all",
        "/settings/passkeys/delete",
    ]
    /// The paths that only take a form (a GET of them is 405).
    private static let postOnly: Set<String> = [
        "/signout", "/identify/add", "/settings/theme", "/settings/calendar", "/settings/calendar/revoke", "/settings/shares",
        "/settings/shares/revoke", "/settings/sessions/signout", "/settings/sessions/others", "/settings/import", "/settings/passkeys/delete",
    ]

    /// - Throws: when a template, stylesheet, script or string catalog is missing from the build or malformed.
    init(router: RPCRouter, browser: BrowserSession, signUp: SignUpPolicy, handlerExecutor: (any TaskExecutor)?,
         timeout: Duration = .seconds(30), maxUploadBytes: Int = 16 << 20) throws {
        assets = try WebAssets.load()
        strings = try WebStrings.load()
        HTMLEscaping.registered  // before the templates, whose pragma names it
        var loaded: [String: MustacheTemplate] = [:]
        for name in ["head", "foot", "signin", "today", "task-row", "task-done", "identify", "identify-results", "plants", "plant", "plant-edit", "delete",
                     "settings", "error"] {
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
        self.maxUploadBytes = maxUploadBytes
        verbs = Self.verbsByLanguage(strings)
    }

    /// ``verbs``, from each language's catalog. The wire names are proto3 JSON's for `TaskType` (scheduling.proto).
    static func verbsByLanguage(_ strings: WebStrings) -> [String: String] {
        let types: [(Plantguide_Scheduling_V1_TaskType, String)] = [
            (.unspecified, "TASK_TYPE_UNSPECIFIED"), (.watering, "TASK_TYPE_WATERING"), (.fertilizing, "TASK_TYPE_FERTILIZING"),
            (.pruning, "TASK_TYPE_PRUNING"), (.repotting, "TASK_TYPE_REPOTTING"), (.pestControl, "TASK_TYPE_PEST_CONTROL"),
            (.rotation, "TASK_TYPE_ROTATION"), (.harvest, "TASK_TYPE_HARVEST"),
        ]
        return strings.catalogs.mapValues { catalog in
            let names = Dictionary(types.map { type, wireName in (wireName, Self.verb(type, catalog)) }) { first, _ in first }
            return String(decoding: (try? JSONSerialization.data(withJSONObject: names, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
        }
    }

    /// Whether `path` is one of the app's pages or files (the JSON API and the rest of the front keep the others).
    func serves(_ path: String) -> Bool {
        Self.pages.contains(path) || path.hasPrefix("/static/") || Self.taskAction(path) != nil || Self.plantPage(path) != nil
    }

    /// The route `path` belongs to, for spans and logs: never an id.
    static func route(of path: String) -> String {
        if path.hasPrefix("/static/") { return "/static/{file}" }
        if let (_, action) = taskAction(path) { return "/tasks/{id}/\(action.rawValue)" }
        if let plant = plantPage(path) { return plant.action == .view ? "/plants/{id}" : "/plants/{id}/\(plant.action.rawValue)" }
        return path
    }

    /// The page or file for `request`; ``serves(_:)`` said the path is the app's.
    func response(to request: Request) async -> Response {
        let path = request.uri.path
        if path.hasPrefix("/static/") { return asset(path, acceptEncoding: request.headers[.acceptEncoding] ?? "") }
        // The manifest and the service worker keep their names, so a browser asks for them again each time.
        if path == "/manifest.webmanifest" { return Self.file(assets.manifest(name: "PlantGuide"), type: "application/manifest+json") }
        let page = PageRequest(request: request, strings: strings.catalog(acceptLanguage: request.headers[.acceptLanguage]))
        if path == "/sw.js" {
            var answer = Self.file(assets.serviceWorker(strings: page.strings), type: "text/javascript; charset=utf-8")
            answer.headers[.vary] = "Accept-Language"
            return answer
        }
        if request.method == .post, let refusal = browser.forgeryRefusal(request) {
            return render("error", page, status: .forbidden, ["title": page.strings.format("somethingWrong"), "message": refusal])
        }
        // Parsed once: the paths that carry an id.
        let plantPage = Self.plantPage(path), taskAction = Self.taskAction(path)
        switch (request.method, path) {
        case (.get, "/"): return Self.redirect(page.token == nil ? "/signin" : "/today")
        case (.get, "/signin"): return page.token == nil ? signInPage(page, signingUp: false) : Self.redirect("/today")
        case (.get, "/signup"): return page.token == nil ? signInPage(page, signingUp: true) : Self.redirect("/today")
        case (.post, "/signin"): return await signIn(page, form: await Self.form(request), signingUp: false)
        case (.post, "/signup"): return await signIn(page, form: await Self.form(request), signingUp: true)
        case (.post, "/signout"): return await signOut(page)
        case (.get, "/today"): return await today(page)
        case (.get, "/identify"): return identifyPage(page)
        case (.post, "/identify"): return await identify(page, request, byScript: request.headers[Self.htmxRequest] == "true")
        case (.post, "/identify/add"): return await addIdentified(page, request, byScript: request.headers[Self.htmxRequest] == "true")
        case (.get, "/plants"):
            let query = request.uri.queryParameters
            return await plants(page, query: query["q"].map(String.init) ?? "", favoritesOnly: query["favorites"] == "1",
                                sort: query["sort"].map(String.init) ?? "added")
        case (.get, "/settings"):
            let query = Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }) { first, _ in first }
            return await settings(page, SettingsShown(notice: Self.settingsNotice(query, page.strings)))
        case (.post, "/settings"): return await saveSettings(page, form: await Self.formFields(request))
        case (.post, "/settings/theme"): return saveTheme(page, form: await Self.form(request))
        case (.post, "/settings/calendar"): return await createCalendarLink(page, origin: browser.origin(of: request))
        case (.post, "/settings/calendar/revoke"): return await revokeCalendarLink(page)
        case (.post, "/settings/shares"): return await share(page, form: await Self.form(request))
        case (.post, "/settings/shares/revoke"): return await stopSharing(page, form: await Self.form(request))
        case (.post, "/settings/sessions/signout"): return await signOutDevice(page, form: await Self.form(request))
        case (.post, "/settings/sessions/others"): return await signOutOtherDevices(page)
        case (.post, "/settings/passkeys/delete"): return await removePasskey(page, form: await Self.form(request))
        case (.get, "/settings/export"): return await export(page)
        case (.post, "/settings/import"): return await importArchive(page, request)
        case (.get, "/settings/delete-all"): return confirmDeleteAll(page)
        case (.post, "/settings/delete-all"): return await deleteAll(page)
        case (.get, _) where plantPage != nil:
            let (id, action) = plantPage!
            switch action {
            case .view: return await plant(page, id: id)
            case .edit: return await editPlant(page, id: id)
            case .delete: return await confirmDeletion(page, id: id)
            case .photo: return Self.redirect(Self.plantPath(id))
            }
        case (.post, _) where plantPage?.action == .edit: return await saveEdit(page, id: plantPage!.id, form: await Self.formFields(request))
        case (.post, _) where plantPage?.action == .delete: return await delete(page, id: plantPage!.id)
        case (.post, _) where plantPage?.action == .photo: return await addPhoto(page, id: plantPage!.id, request)
        case (.post, _) where taskAction != nil:
            return await act(page, on: taskAction!.id, taskAction!.action, byScript: request.headers[Self.htmxRequest] == "true",
                             plantName: await Self.form(request)["plant"])
        default:
            var answer = render("error", page, status: .methodNotAllowed,
                                ["title": page.strings.format("somethingWrong"), "message": "\(request.method) \(path)"])
            answer.headers[.allow] = taskAction != nil || Self.postOnly.contains(path) ? "POST" : path == "/settings/export" ? "GET" : "GET, POST"
            return answer
        }
    }

    /// A due date ("2026-11-27") as the reader's language writes a day ("Fri, 27 Nov", "vie, 27 nov").
    static func day(_ isoDate: String, _ strings: [String: String]) -> String {
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
    static func displayName(_ plant: Plantguide_Collection_V1_Plant) -> String {
        plant.customName.isEmpty ? (plant.commonNames.first ?? plant.scientificName) : plant.customName
    }

    func failurePage<Value>(_ page: PageRequest, _ outcome: Result<Value, RPCError>) -> Response {
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
    struct PageRequest {
        let token: String?
        let strings: [String: String]
        /// The colours and units chosen on this device.
        let theme: Theme
        let units: Units

        init(request: Request, strings: [String: String]) {
            token = BrowserSession.token(in: request)
            self.strings = strings
            theme = Theme(request: request)
            units = Units(request: request)
        }
    }

    func render(_ template: String, _ page: PageRequest, status: HTTPResponse.Status = .ok, _ values: [String: Any]) -> Response {
        var context = values
        context["strings"] = page.strings
        context["assets"] = assets.links
        context["signedIn"] = page.token != nil
        context["colorScheme"] = page.theme.colorScheme
        if page.token != nil { context["verbs"] = verbs[page.strings["language"] ?? "en"] ?? "{}" }
        if page.theme != .system { context["theme"] = page.theme.rawValue }
        // A template missing from the library is a fault of the build, said as one: never an empty page.
        guard let html = templates.render(context, withTemplate: template) else {
            return Self.html("<!doctype html><title>PlantGuide</title><p>The page template \(template) is missing.</p>", status: .internalServerError)
        }
        return Self.html(html, status: status)
    }

    /// Calls one of the gateway's own methods, in process, as the session's owner.
    func call<Request: SwiftProtobuf.Message, Answer: SwiftProtobuf.Message>(
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

    func asset(_ path: String, acceptEncoding: String) -> Response {
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

    static func html(_ body: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [
            .contentType: "text/html; charset=utf-8", .contentSecurityPolicy: contentSecurityPolicy, referrerPolicy: "same-origin",
            .xContentTypeOptions: "nosniff", .cacheControl: "no-store", .vary: "Accept-Language, Cookie",
        ], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func file(_ body: Data, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache", .xContentTypeOptions: "nosniff"],
                 body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// The API's field violations (its `BadRequest` details) by the form's field names, for messages beside the
    /// fields: a violation names its field by path ("plant.custom_name"), whose last part is the form's field.
    static func fieldErrors(_ error: RPCError?) -> [String: String] {
        let violations = error?.details.fieldViolations.map { ($0.field.split(separator: ".").last.map(String.init) ?? $0.field, $0.description) }
        return Dictionary(violations ?? []) { first, _ in first }
    }

    static func status(of error: RPCError) -> HTTPResponse.Status {
        HTTPResponse.Status(code: HTTPStatusMapping.status(for: error.code))
    }

    /// `/plants/{id}`, `/plants/{id}/edit`, `/plants/{id}/delete` or `/plants/{id}/photo`.
    static func plantPage(_ path: String) -> (id: String, action: PlantAction)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 4, parts[1] == "plants", !parts[2].isEmpty,
              let id = String(parts[2]).removingPercentEncoding else { return nil }
        guard parts.count == 4 else { return (id, .view) }
        guard let action = PlantAction(rawValue: String(parts[3])), action != .view else { return nil }
        return (id, action)
    }

    /// The pages of one plant.
    enum PlantAction: String {
        case view = ""
        case edit
        case delete
        /// Adds a photo (a form post only).
        case photo
    }

    /// The task id and the action of `/tasks/{id}/complete`, `…/snooze`, `…/skip` or `…/reopen`.
    static func taskAction(_ path: String) -> (id: String, action: TaskAction)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[1] == "tasks", let action = TaskAction(rawValue: String(parts[3])), !parts[2].isEmpty,
              let id = String(parts[2]).removingPercentEncoding else { return nil }
        return (id, action)
    }

    /// What Today's buttons do to a task.
    enum TaskAction: String {
        case complete
        /// Put off to tomorrow.
        case snooze
        /// This occurrence is not done; recurring care goes on from it.
        case skip
        /// Undoes a completion or a skip.
        case reopen
    }

    /// A form's fields (`application/x-www-form-urlencoded`, at most 64 KiB), the first value of each name.
    static func form(_ request: Request) async -> [String: String] {
        Dictionary(await formFields(request)) { first, _ in first }
    }

    /// A form's fields in order, repeated names (checkboxes) included.
    static func formFields(_ request: Request) async -> [(String, String)] {
        guard let buffer = try? await request.body.collect(upTo: 64 << 10) else { return [] }
        return String(buffer: buffer).split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            guard let key = parts.first else { return nil }
            return (key, parts.count > 1 ? parts[1] : "")
        }
    }

    static func verb(_ type: Plantguide_Scheduling_V1_TaskType, _ strings: [String: String]) -> String {
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

    static let htmxRequest = HTTPFields.Element.Name("HX-Request")!
    static let referrerPolicy = HTTPFields.Element.Name("Referrer-Policy")!
}
