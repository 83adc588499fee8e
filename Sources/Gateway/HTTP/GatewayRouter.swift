import Foundation
import Hummingbird
import Logging
import PlantGuideRPCCore

/// The gateway's HTTP front as a Hummingbird router: the routes of each area in a collection of its own, and what
/// every route of an area shares as middleware.
///
/// - Every request: ``RequestFactsMiddleware`` (the client's address), ``AccessLogMiddleware`` and
///   ``ServerSpanMiddleware`` (ours: `traceresponse` and route names that never hold a secret).
/// - Probes (``ProbeRoutes``): nothing more.
/// - The JSON API (``JSONAPIRoutes``), calendar feeds (``CalendarFeedRoutes``) and the reminder stream
///   (``ReminderStream``): Hummingbird's `CORSMiddleware` (any origin, never credentials),
///   ``SessionAuthenticationMiddleware``, ``CrossSiteRequestMiddleware`` (cookie-authenticated changes only) and
///   ``BodyLimitMiddleware``.
/// - The web app (``WebApp``, one collection per screen): ``SessionAuthenticationMiddleware`` and
///   ``CrossSiteRequestMiddleware`` on every form post, refused as a page.
/// Any other path is a JSON 404.
enum GatewayRouter {
    struct Parts: Sendable {
        var api: JSONAPIRoutes
        var probes: ProbeRoutes
        var calendar: CalendarFeedRoutes
        var reminderStream: ReminderStream
        var web: WebApp?
        var browser: BrowserSession
        var clientAddresses: ClientAddresses
        var maxBodyBytes: Int
    }

    static func router(_ parts: Parts, logger: Logger) -> Router<GatewayRequestContext> {
        let router = Router(context: GatewayRequestContext.self)
        router.add(middleware: RequestFactsMiddleware(clientAddresses: parts.clientAddresses))
        router.add(middleware: AccessLogMiddleware(logger: logger))
        router.add(middleware: ServerSpanMiddleware())
        router.addRoutes(parts.probes.collection())

        let api = router.group()
            .add(middleware: CORSMiddleware(allowOrigin: .all, allowHeaders: [.authorization, .contentType, APIAnswer.collectionOwner],
                                            allowMethods: [.get, .post, .put, .patch, .delete, .options]))
            .add(middleware: SessionAuthenticationMiddleware())
            .add(middleware: CrossSiteRequestMiddleware(browser: parts.browser) { _, reason in APIAnswer.crossSiteRefusal(reason) })
            .add(middleware: BodyLimitMiddleware(maxBytes: parts.maxBodyBytes))
        api.addRoutes(parts.calendar.collection())
        api.addRoutes(parts.reminderStream.collection())
        api.addRoutes(parts.api.collection())

        if let web = parts.web {
            let pages = router.group()
                .add(middleware: SessionAuthenticationMiddleware())
                .add(middleware: CrossSiteRequestMiddleware(browser: parts.browser, checksEveryChange: true) { request, reason in
                    web.crossSiteRefusal(request, reason: reason)
                })
            for screen in web.screens() { pages.addRoutes(screen) }
        }

        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete, .options] {
            router.on("/**", method: method) { request, _ in APIAnswer.failure(RPCError(.notFound, "no route for \(request.uri.path)")) }
        }
        return router
    }
}
