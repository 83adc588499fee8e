import Foundation
import Hummingbird
import PlantGuideRPCCore

/// `GET /v1/reminders/stream`: the caller's reminders as Server-Sent Events, relayed by a ``ReminderRelay``.
///
/// Each reminder is an event "reminder" whose id is the reminder's id (stable across redeliveries: deduplicate on
/// it) and whose data is the `plantguide.scheduling.v1.Reminder` in proto3 JSON; a comment line every keep-alive
/// interval. The token comes as the Authorization header or, for browsers' EventSource (which sends no headers),
/// the query parameter `access_token`; a shared collection's owner as the PlantGuide-Collection-Owner header or
/// the query parameter `collection_owner`.
struct ReminderStream: Sendable {
    static let path = "/v1/reminders/stream"

    let relay: ReminderRelay
    /// The user whose reminders the caller may read, given the Authorization value and the collection owner.
    let authenticate: @Sendable (_ authorization: String?, _ collectionOwner: String?) async throws -> Caller

    /// The stream's route (every method: any but GET is 405).
    func collection() -> RouteCollection<GatewayRequestContext> {
        let routes = RouteCollection(context: GatewayRequestContext.self)
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
            routes.on(RouterPath(stringLiteral: Self.path), method: method) { request, context in
                await response(to: request, authorization: context.authorization)
            }
        }
        return routes
    }

    /// - Parameter authorization: the request's Authorization header, or its session cookie's token as one.
    func response(to request: Request, authorization: String?) async -> Response {
        guard request.method == .get else { return APIAnswer.methodNotAllowed(request.method.rawValue, Self.path, allowed: ["GET"]) }
        let query = request.uri.queryParameters
        let authorization = authorization ?? query["access_token"].map { "Bearer \($0)" }
        let owner = request.headers[APIAnswer.collectionOwner] ?? query["collection_owner"].map(String.init)
        let caller: Caller
        do {
            caller = try await authenticate(authorization, owner)
        } catch {
            return APIAnswer.failure(RPCError(mapping: error))
        }
        let events = relay.events(for: caller.id)
        let body = ResponseBody { writer in
            // A first line at once, so that the client (and any proxy) sees the stream open.
            try await writer.write(ByteBuffer(string: ": reminders as they fall due\n\n"))
            for await event in events {
                switch event {
                case .keepAlive:
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                case .reminder(let reminder):
                    let json = try reminder.jsonString()
                    try await writer.write(ByteBuffer(string: "event: reminder\nid: \(reminder.id)\ndata: \(json)\n\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }
}
