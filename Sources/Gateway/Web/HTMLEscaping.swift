import Mustache

/// HTML escaping for the web app's templates and for the HTML it builds itself: `&`, `<`, `>`, `"` and `'` as
/// entities, as swift-mustache escapes them, but over UTF-8 bytes, and a text with none of them returned as it is.
/// swift-mustache's own escaping looks every Character up in a dictionary; on Today's 50 rows that was a quarter of
/// the page's rendering time (perf, `Scripts/bench web`).
///
/// Each template begins with `{{% CONTENT_TYPE: PlantGuideHTML}}`, the name this escaping is registered under.
enum HTMLEscaping {
    /// The content type's name in the templates' pragma.
    static let contentTypeName = "PlantGuideHTML"

    /// Registers the content type with swift-mustache, once per process, before any template is parsed (the
    /// pragma is resolved when a template is read).
    static let registered: Void = MustacheContentTypes.register(ContentType(), named: contentTypeName)

    struct ContentType: MustacheContentType {
        func escapeText(_ text: String) -> String { HTMLEscaping.escaped(text) }
    }

    static func escaped(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">")
                                        || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") }) else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 16)
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
                case UInt8(ascii: "'"): out.append(contentsOf: "&#39;".utf8)
                default: out.append(byte)
                }
            }
            return String(decoding: out, as: UTF8.self)
        } ?? text
    }
}
