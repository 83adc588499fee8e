import Foundation
import PlantGuideProtos
import PlantGuideRPCCore
import SwiftProtobuf

/// Turns an HTTP request into a method's request message and its response message into JSON, as grpc-gateway
/// does: the JSON body fills the field its binding names ("*": the whole message), then each path variable and
/// query parameter sets the field its dotted path names ("filter.page_size=10"; repeated parameters make a list).
/// Values of "true" and "false" are booleans, others strings (proto3 JSON reads numbers and enums from strings).
enum JSONTranscoder {
    /// - Throws: INVALID_ARGUMENT naming "body" (or the parameter) when the result is not the request message.
    /// `upload` is a body that is not JSON (a raw image, a multipart file): it fills the bytes field the binding's
    /// body names.
    static func request(
        _ method: any AnyRPCMethod, binding: HTTPBinding, body: Data, upload: Data? = nil, pathVariables: [String: String],
        query: [(String, String)]
    ) throws -> any SwiftProtobuf.Message {
        var object: [String: Any] = [:]
        if let upload, !binding.body.isEmpty, binding.body != "*" {
            set(&object, path: binding.body.split(separator: ".").map(String.init), to: upload.base64EncodedString())
        } else if !body.isEmpty && !binding.body.isEmpty {
            guard let parsed = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
                throw RPCError.invalidArgument("body", .invalidFormat, "the body is not JSON")
            }
            if binding.body == "*" {
                guard let fields = parsed as? [String: Any] else {
                    throw RPCError.invalidArgument("body", .invalidFormat, "the body must be a JSON object")
                }
                object = fields
            } else {
                set(&object, path: binding.body.split(separator: ".").map(String.init), to: parsed)
            }
        }
        var repeated: [String: [Any]] = [:]
        for (name, value) in query { repeated[name, default: []].append(scalar(value)) }
        for (name, values) in repeated {
            set(&object, path: name.split(separator: ".").map(String.init), to: values.count == 1 ? values[0] : values)
        }
        for (name, value) in pathVariables { set(&object, path: name.split(separator: ".").map(String.init), to: value) }
        let json = try JSONSerialization.data(withJSONObject: object)
        do {
            return try method.requestType.init(jsonUTF8Data: json, options: JSONDecodingOptions())
        } catch {
            throw RPCError.invalidArgument(
                query.isEmpty ? "body" : "query", .invalidFormat,
                "the request is not a \(method.requestType.protoMessageName) in proto3 JSON (check field names and value types)")
        }
    }

    /// For a binding with a response body (a photo): the bytes of that field, and the response's `mediaType` and
    /// `contentSha256` fields when it has them (the Content-Type and the ETag).
    static func binaryResponse(_ method: any AnyRPCMethod, payload: Data, field: String) throws
        -> (body: Data, mediaType: String?, etag: String?)
    {
        let message = try method.responseType.init(serializedBytes: payload)
        let object = try JSONSerialization.jsonObject(with: try message.jsonUTF8Data()) as? [String: Any] ?? [:]
        let name = jsonName(field)
        let bytes = (object[name] as? String).flatMap { Data(base64Encoded: $0) } ?? Data()
        return (bytes, object["mediaType"] as? String, object["contentSha256"] as? String)
    }

    /// proto3 JSON's lowerCamelCase name of a snake_case field.
    static func jsonName(_ field: String) -> String {
        let parts = field.split(separator: "_")
        return (parts.first.map(String.init) ?? "") + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The response message in proto3 JSON, field names in lowerCamelCase as the mapping prints them.
    static func response(_ method: any AnyRPCMethod, payload: Data) throws -> Data {
        let message = try method.responseType.init(serializedBytes: payload)
        return try message.jsonUTF8Data(options: JSONEncodingOptions())
    }

    /// An error as the JSON body of an HTTP error response (google.rpc.Status's shape, details spelled out).
    static func error(_ error: RPCError) -> Data {
        var body: [String: Any] = [
            "code": HTTPStatusMapping.status(for: error.code), "status": error.code.name, "message": error.message,
        ]
        if !error.details.fieldViolations.isEmpty {
            body["fieldViolations"] = error.details.fieldViolations.map {
                ["field": $0.field, "reason": $0.reason.rawValue, "description": $0.description]
            }
        }
        if let info = error.details.info {
            body["reason"] = info.reason
            body["domain"] = info.domain
            if !info.metadata.isEmpty { body["metadata"] = info.metadata }
        }
        if let delay = error.details.retryDelay { body["retryAfterSeconds"] = retryAfterSeconds(delay) }
        return (try? JSONSerialization.data(withJSONObject: ["error": body], options: [.sortedKeys])) ?? Data()
    }

    /// Whole seconds for a Retry-After header, at least 1.
    static func retryAfterSeconds(_ delay: Duration) -> Int {
        max(1, Int((Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18).rounded(.up)))
    }

    private static func scalar(_ text: String) -> Any {
        switch text {
        case "true": true
        case "false": false
        default: text
        }
    }

    private static func set(_ object: inout [String: Any], path: [String], to value: Any) {
        guard let first = path.first else { return }
        if path.count == 1 {
            object[first] = value
            return
        }
        var child = object[first] as? [String: Any] ?? [:]
        set(&child, path: Array(path.dropFirst()), to: value)
        object[first] = child
    }
}
