import Crypto
import Foundation

/// The web app's static files (stylesheet, scripts), embedded in the gateway as package resources and served under
/// names that carry a hash of their content (`/static/app.3f2a9c1e.css`), so that a browser may keep each one for a
/// year: a changed file gets a new name. Each is gzipped once, at start.
struct WebAssets: Sendable {
    /// One file as served.
    struct Asset: Sendable {
        let contentType: String
        let body: Data
        let gzipped: Data?
    }

    /// Served path → file.
    let byPath: [String: Asset]
    /// Plain name ("app.css") → served path, for the pages' links.
    let paths: [String: String]

    private static let files: [(name: String, contentType: String)] = [
        ("app.css", "text/css; charset=utf-8"),
        ("app.js", "text/javascript; charset=utf-8"),
        ("htmx.min.js", "text/javascript; charset=utf-8"),
    ]

    /// Reads the files from the gateway's resources.
    /// - Throws: when one is missing from the build.
    static func load() throws -> WebAssets {
        var byPath: [String: Asset] = [:]
        var paths: [String: String] = [:]
        for file in files {
            guard let url = Bundle.module.url(forResource: "WebAssets/static/\(file.name)", withExtension: nil) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: file.name])
            }
            let body = try Data(contentsOf: url)
            let hash = SHA256.hash(data: body).prefix(5).map { String(format: "%02x", $0) }.joined()
            let dot = file.name.lastIndex(of: ".")!
            let path = "/static/\(file.name[..<dot]).\(hash)\(file.name[dot...])"
            byPath[path] = Asset(contentType: file.contentType, body: body, gzipped: Gzip.compress(body))
            paths[file.name] = path
        }
        return WebAssets(byPath: byPath, paths: paths)
    }

    /// The links the pages' head uses.
    var links: [String: String] {
        ["css": paths["app.css"] ?? "", "js": paths["app.js"] ?? "", "htmx": paths["htmx.min.js"] ?? ""]
    }
}
