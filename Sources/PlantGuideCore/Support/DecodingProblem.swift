import Foundation

/// Says in words what is wrong with JSON that did not decode, for messages that reach callers: the field's path
/// and the problem, never the names of Swift types (a `DecodingError`'s description lists them).
public enum DecodingProblem {
    /// E.g. "at results[0].score: expected a number", or "the body is not valid JSON".
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "the body is not valid JSON" }
        switch error {
        case .typeMismatch(let type, let context):
            return "at \(path(context.codingPath)): expected \(kind(type))"
        case .valueNotFound(let type, let context):
            return "at \(path(context.codingPath)): expected \(kind(type)), found null"
        case .keyNotFound(let key, let context):
            return "at \(path(context.codingPath + [key])): missing"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the body is not valid JSON" : "at \(path(context.codingPath)): invalid value"
        @unknown default:
            return "the body does not have the expected shape"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        guard !keys.isEmpty else { return "the top level" }
        var text = ""
        for key in keys {
            if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        return text
    }

    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Double.Type, is Float.Type, is UInt.Type: "a number"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }
}
