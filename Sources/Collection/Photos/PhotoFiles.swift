import Foundation

/// Photo files under `<data>/photos`, content-addressed: `ab/abcd….jpeg` for an original, `ab/abcd….256.jpg` and
/// `ab/abcd….1024.jpg` for its thumbnails. Written atomically (a temporary file renamed into place), so a reader
/// never sees half a photo and a crash leaves no torn file.
struct PhotoFiles: Sendable {
    let root: URL

    /// The thumbnail sizes made for every photo.
    static let thumbnailSizes = [256, 1024]

    func original(_ sha: String, mediaType: String) -> URL {
        folder(sha).appendingPathComponent("\(sha).\(mediaType.replacingOccurrences(of: "image/", with: ""))")
    }

    func thumbnail(_ sha: String, size: Int) -> URL {
        folder(sha).appendingPathComponent("\(sha).\(size).jpg")
    }

    func write(_ data: Data, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
    }

    /// Removes every file of `sha` (original of any type, thumbnails). Missing files are fine.
    func remove(_ sha: String) {
        let folder = folder(sha)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(sha) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    private func folder(_ sha: String) -> URL {
        root.appendingPathComponent(String(sha.prefix(2)), isDirectory: true)
    }
}
