import Foundation
import Hummingbird
import PlantGuideRPCCore

/// The JSON API's answers: JSON bodies, errors as `google.rpc.Status` with the HTTP status of their code, and
/// content-addressed bytes. CORS headers are the middleware's (``GatewayRouter``).
enum APIAnswer {
    static func json(status: HTTPResponse.Status, _ body: Data) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func failure(_ error: RPCError, status: HTTPResponse.Status? = nil) -> Response {
        var response = json(status: status ?? .init(code: HTTPStatusMapping.status(for: error.code)), JSONTranscoder.error(error))
        if let delay = error.details.retryDelay { response.headers[.retryAfter] = String(JSONTranscoder.retryAfterSeconds(delay)) }
        return response
    }

    /// 405, with the verbs `path` takes in Allow (and OPTIONS, which every path takes).
    static func methodNotAllowed(_ verb: String, _ path: String, allowed: [String]) -> Response {
        var refusal = failure(RPCError(.unimplemented, "\(verb) is not allowed on \(path)"), status: .methodNotAllowed)
        refusal.headers[.allow] = (allowed + ["OPTIONS"]).joined(separator: ", ")
        return refusal
    }

    /// 403 for a cookie-authenticated change (or cookie sign-in) that did not come from the gateway's own pages.
    static func crossSiteRefusal(_ reason: String) -> Response {
        failure(RPCError(.permissionDenied, reason).reason(GatewayErrorReason.crossSiteRequest, domain: GatewayErrorReason.domain))
    }

    /// Content-addressed bytes: an ETag, a year's caching, and 304 when the client has them already.
    static func binary(_ answer: (body: Data, mediaType: String?, etag: String?), ifNoneMatch: String?) -> Response {
        var headers: HTTPFields = [.contentType: answer.mediaType ?? "application/octet-stream", .cacheControl: "private, max-age=31536000, immutable"]
        if let etag = answer.etag {
            let quoted = "\"\(etag)\""
            headers[.eTag] = quoted
            if let ifNoneMatch, ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == quoted }) {
                return Response(status: .notModified, headers: headers)
            }
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// The entity tags of an If-None-Match header (`"a", W/"b"`), without quotes or weakness marks; `*` (any) as
    /// itself.
    static func entityTags(_ header: String) -> [String] {
        header.split(separator: ",").compactMap { part in
            var tag = part.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return tag }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            guard tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") else { return nil }
            return String(tag.dropFirst().dropLast())
        }
    }

    static let collectionOwner = HTTPFields.Element.Name(CallerAuthenticator.collectionOwnerKey)!
}
