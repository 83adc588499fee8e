import Foundation
import Logging

/// A swift-log handler that writes one JSON object a line to standard error, for log collectors (Loki, the
/// OpenTelemetry Collector's filelog receiver, a cloud's log agent) that parse lines rather than read text:
///
/// ```
/// {"time":"2026-11-26T07:50:15.123Z","level":"error","service":"plantguide-gateway","logger":"plantguide.rpc.client",
///  "message":"…","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","metadata":{"error":"…","plantguide.rpc.request_id":"7"}}
/// ```
///
/// The request's trace id (metadata `plantguide.trace_id`, which the RPC server sets from the caller's) and span id
/// (`plantguide.span_id`) are lifted to `trace_id` and `span_id`, so that a line can be joined to its trace. `logger`
/// is the logger's label when it is not the service's name.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let service: String
    private let label: String

    /// - Parameters:
    ///   - service: the `service` of every line: the process's service name.
    ///   - label: the logger's label.
    public init(service: String, label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.service = service
        self.label = label
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
                    file: String, function: String, line: UInt) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let explicit { merged.merge(explicit) { $1 } }
        var text = Self.line(time: Date(), level: level, service: service, logger: label, message: message.description, metadata: merged)
        text.append("\n")
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }  // standard error is gone: nothing better to do
                offset += written
            }
        }
    }

    /// The JSON object of one log line (without its newline); keys in a fixed order.
    static func line(time: Date, level: Logger.Level, service: String, logger: String, message: String,
                     metadata: Logger.Metadata) -> String {
        var metadata = metadata
        var text = "{\"time\":\"\(Self.timestamp(time))\",\"level\":\"\(level.rawValue)\",\"service\":"
        JSONText.append(string: service, to: &text)
        if logger != service {
            text.append(",\"logger\":")
            JSONText.append(string: logger, to: &text)
        }
        text.append(",\"message\":")
        JSONText.append(string: message, to: &text)
        for (key, field) in [("plantguide.trace_id", "trace_id"), ("plantguide.span_id", "span_id")] {
            guard let value = metadata.removeValue(forKey: key) else { continue }
            text.append(",\"\(field)\":")
            JSONText.append(string: "\(value)", to: &text)
        }
        if !metadata.isEmpty {
            text.append(",\"metadata\":")
            JSONText.append(.dictionary(metadata), to: &text)
        }
        text.append("}")
        return text
    }

    /// RFC 3339 in UTC with milliseconds: "2026-11-26T07:50:15.123Z".
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1_000).rounded(.down))
        var seconds = time_t(milliseconds / 1_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1_900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(milliseconds % 1_000))
    }
}

/// JSON text of log metadata, written by hand: keys sorted, so that lines compare and diff well.
enum JSONText {
    static func append(_ value: Logger.Metadata.Value, to text: inout String) {
        switch value {
        case .string(let string):
            append(string: string, to: &text)
        case .stringConvertible(let convertible):
            append(string: convertible.description, to: &text)
        case .array(let values):
            text.append("[")
            for (index, element) in values.enumerated() {
                if index > 0 { text.append(",") }
                append(element, to: &text)
            }
            text.append("]")
        case .dictionary(let entries):
            text.append("{")
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { text.append(",") }
                append(string: key, to: &text)
                text.append(":")
                append(entries[key]!, to: &text)
            }
            text.append("}")
        }
    }

    /// `string` as a JSON string literal: quotes, backslashes and control characters escaped.
    static func append(string: String, to text: inout String) {
        text.append("\"")
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text.append("\\\"")
            case "\\": text.append("\\\\")
            case "\n": text.append("\\n")
            case "\r": text.append("\\r")
            case "\t": text.append("\\t")
            case let control where control.value < 0x20 || control.value == 0x7F || (0x2028...0x2029).contains(control.value):
                text.append(String(format: "\\u%04x", control.value))
            default: text.unicodeScalars.append(scalar)
            }
        }
        text.append("\"")
    }
}
