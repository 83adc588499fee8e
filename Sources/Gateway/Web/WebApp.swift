import Foundation
import Hummingbird
import Mustache
import PlantGuideProtos
import PlantGuideRPCCore
import SwiftProtobuf

/// PlantGuide's face for people: pages rendered on the server (swift-mustache, every value HTML-escaped) from the
/// same methods the JSON API serves, called in process with the session's token (``GatewayMethods``), enhanced by
/// htmx and a little script of our own, on the gateway's origin.
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
    let methods: GatewayMethods
    let browser: BrowserSession
    let signUp: SignUpPolicy
    let handlerExecutor: (any TaskExecutor)?
    let timeout: Duration
    /// The largest photo form Identify reads (the HTTP front's body limit).
    let maxUploadBytes: Int
    /// Language → a JSON object of each task type's wire name ("TASK_TYPE_WATERING") and its verb ("Water"), for
    /// the page's script to name the reminders that arrive live.
    let verbs: [String: String]

    /// - Throws: when a template, stylesheet, script or string catalog is missing from the build or malformed.
    init(methods: GatewayMethods, browser: BrowserSession, signUp: SignUpPolicy, handlerExecutor: (any TaskExecutor)?,
         timeout: Duration = .seconds(30), maxUploadBytes: Int = 16 << 20) throws {
        assets = try WebAssets.load()
        strings = try WebStrings.load()
        HTMLEscaping.registered  // before the templates, whose pragma names it
        // Every template the build carries, by its file's name: a new page is a template and a route, nothing listed.
        var loaded: [String: MustacheTemplate] = [:]
        let folder = Bundle.module.resourceURL?.appendingPathComponent("WebAssets/templates")
        let files = folder.flatMap { try? FileManager.default.contentsOfDirectory(at: $0, includingPropertiesForKeys: nil) } ?? []
        for url in files where url.pathExtension == "mustache" {
            loaded[url.deletingPathExtension().lastPathComponent] = try MustacheTemplate(string: String(contentsOf: url, encoding: .utf8))
        }
        for name in ["head", "foot", "error"] where loaded[name] == nil {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "\(name).mustache"])
        }
        templates = MustacheLibrary(templates: loaded)
        self.methods = methods
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

    /// The app's routes, one collection per screen (each in its screen's file), and its files.
    func screens() -> [RouteCollection<GatewayRequestContext>] {
        [accountRoutes(), todayRoutes(), identifyRoutes(), plantsRoutes(), plantRoutes(), settingsRoutes(), fileRoutes()]
    }

    /// The app's files: its stylesheet, scripts and icons (named after their contents, kept a year), the manifest
    /// and the service worker (which keep their names, so a browser asks for them again each time).
    private func fileRoutes() -> RouteCollection<GatewayRequestContext> {
        let routes = RouteCollection(context: GatewayRequestContext.self)
        routes.get("/static/**") { request, _ in asset(request.uri.path, acceptEncoding: request.headers[.acceptEncoding] ?? "") }
        routes.get("/manifest.webmanifest") { _, _ in Self.file(assets.manifest(name: "PlantGuide"), type: "application/manifest+json") }
        routes.get("/sw.js") { request, _ in
            var answer = Self.file(assets.serviceWorker(strings: pageRequest(request).strings), type: "text/javascript; charset=utf-8")
            answer.headers[.vary] = "Accept-Language"
            return answer
        }
        return routes
    }

    /// What a page needs of `request`: its session and the strings of its reader's language.
    func pageRequest(_ request: Request) -> PageRequest {
        PageRequest(request: request, strings: strings.catalog(acceptLanguage: request.headers[.acceptLanguage]))
    }

    /// A form post that did not come from the app's own pages, refused as a page saying why.
    func crossSiteRefusal(_ request: Request, reason: String) -> Response {
        let page = pageRequest(request)
        return render("error", page, status: .forbidden, ["title": page.strings.format("somethingWrong"), "message": reason])
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

    /// Calls one of the gateway's own methods, in process, as the session's owner: the typed request and answer,
    /// on the RPC I/O thread as the RPC front runs them.
    func call<Request: SwiftProtobuf.Message, Answer: SwiftProtobuf.Message>(
        _ method: RPCMethod<Request, Answer>, _ request: Request, token: String?
    ) async -> Result<Answer, RPCError> {
        let (methods, deadline) = (self.methods, ContinuousClock.now + timeout)
        @Sendable func run() async -> Result<Answer, RPCError> {
            do {
                return .success(try await methods.call(method, request, token: token, deadline: deadline))
            } catch {
                return .failure(RPCError(mapping: error))
            }
        }
        guard let handlerExecutor else { return await run() }
        return await withTaskExecutorPreference(handlerExecutor) { await run() }
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
