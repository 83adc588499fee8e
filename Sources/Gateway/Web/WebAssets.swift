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
    /// `/sw.js`, the service worker, which must keep one name: its source with the files' names and version in it,
    /// its words still to be filled in (``serviceWorker(strings:)``).
    private(set) var serviceWorkerSource = ""

    private static let files: [(name: String, contentType: String)] = [
        ("app.css", "text/css; charset=utf-8"),
        ("app.js", "text/javascript; charset=utf-8"),
        ("htmx.min.js", "text/javascript; charset=utf-8"),
        ("icon-192.png", "image/png"),
        ("icon-512.png", "image/png"),
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
            // PNG is compressed already.
            byPath[path] = Asset(contentType: file.contentType, body: body, gzipped: file.name.hasSuffix(".png") ? nil : Gzip.compress(body))
            paths[file.name] = path
        }
        var assets = WebAssets(byPath: byPath, paths: paths)
        assets.serviceWorkerSource = try serviceWorkerSource(shell: Array(paths.values), version: assets.version)
        return assets
    }

    /// The links the pages' head uses.
    var links: [String: String] {
        ["css": paths["app.css"] ?? "", "js": paths["app.js"] ?? "", "htmx": paths["htmx.min.js"] ?? "", "icon": paths["icon-192.png"] ?? ""]
    }

    /// Names all the files together: it changes whenever one of them does.
    var version: String {
        String(SHA256.hash(data: Data(paths.values.sorted().joined(separator: "\n").utf8)).prefix(6).map { String(format: "%02x", $0) }.joined())
    }

    /// The web app manifest, which makes the app installable.
    func manifest(name: String) -> Data {
        let manifest: [String: Any] = [
            "name": name, "short_name": name, "start_url": "/today", "scope": "/", "display": "standalone",
            "background_color": "#fbfaf5", "theme_color": "#22613a",
            "icons": [192, 512].map { size in
                ["src": paths["icon-\(size).png"] ?? "", "sizes": "\(size)x\(size)", "type": "image/png", "purpose": "any maskable"]
            },
        ]
        return (try? JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys])) ?? Data()
    }

    /// The service worker's source, told the files' current names and their version.
    /// - Throws: when `sw.js` is missing from the build.
    static func serviceWorkerSource(shell: [String], version: String) throws -> String {
        guard let url = Bundle.module.url(forResource: "sw", withExtension: "js", subdirectory: "WebAssets/static") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "sw.js"])
        }
        let shellJSON = String(decoding: try JSONSerialization.data(withJSONObject: shell.sorted()), as: UTF8.self)
        return try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "__VERSION__", with: version)
            .replacingOccurrences(of: "__SHELL__", with: shellJSON)
    }

    /// The service worker in the reader's words: its notification buttons and what it says of a task kept offline.
    func serviceWorker(strings: [String: String]) -> Data {
        let words = ["done": strings.format("done"), "snooze": strings.format("snooze"), "queued": strings.format("queuedOffline"),
                     "icon": paths["icon-192.png"] ?? ""]
        // JSON is a JavaScript expression; "</" cannot end a script that is a file of its own, so no escaping beyond JSON's.
        let json = String(decoding: (try? JSONSerialization.data(withJSONObject: words, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
        return Data(serviceWorkerSource.replacingOccurrences(of: "__WORDS__", with: json).utf8)
    }
}
