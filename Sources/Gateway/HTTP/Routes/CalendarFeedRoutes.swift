import Foundation
import Hummingbird
import PlantGuideRPCCore

/// A calendar feed as the HTTP front serves it: the document (nil when the client's version is current) and its
/// version, the ETag.
struct CalendarFeedAnswer: Sendable {
    var ics: String?
    var version: String
}

/// `GET /v1/calendar/{secret}.ics`: a subscribed calendar. The secret in the path stands for the token (calendar
/// apps send no headers). The feed's version is its ETag; a poll with that version in If-None-Match is 304 without
/// the feed being made. The route's name in spans and logs is the template, never the secret.
struct CalendarFeedRoutes: Sendable {
    /// The iCalendar feed of a calendar secret's owner, given the version the client holds; nil for an unknown
    /// or revoked secret.
    let calendar: @Sendable (_ secret: String, _ ifVersion: String) async throws -> CalendarFeedAnswer?

    func collection() -> RouteCollection<GatewayRequestContext> {
        let routes = RouteCollection(context: GatewayRequestContext.self)
        routes.get("/v1/calendar/{secret}.ics") { request, context in
            await feed(secret: context.parameters.get("secret") ?? "", ifNoneMatch: request.headers[.ifNoneMatch] ?? "")
        }
        return routes
    }

    private func feed(secret: String, ifNoneMatch: String) async -> Response {
        let held = APIAnswer.entityTags(ifNoneMatch)
        do {
            guard let feed = try await calendar(secret, held.first ?? "") else { return APIAnswer.failure(RPCError(.notFound, "no such calendar")) }
            var headers: HTTPFields = [.cacheControl: "private, max-age=300", .eTag: "\"\(feed.version)\""]
            guard let ics = feed.ics, !held.contains(feed.version), !held.contains("*") else {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = "text/calendar; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: ics)))
        } catch {
            return APIAnswer.failure(RPCError(mapping: error))
        }
    }
}
