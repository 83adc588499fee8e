import Foundation

/// Photo files under `<data>/photos`, content-addressed: `ab/abcd….jpeg` for an original, `ab/abcd….256.jpg` and
/// `ab/abcd….1024.jpg` for its thumbnails. Written atomically (a temporary file renamed into place), so a reader
/// never sees half a photo and a crash leaves no torn file.
struct PhotoFiles: Sendable {
    let root: URL

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

    /// Whether the original and every thumbnail of `sha` are on disk.
    func exist(_ sha: String, mediaType: String) -> Bool {
        let manager = FileManager.default
        return manager.fileExists(atPath: original(sha, mediaType: mediaType).path)
            && PhotoUpload.thumbnailSizes.allSatisfy { manager.fileExists(atPath: thumbnail(sha, size: $0).path) }
    }

    /// The hashes that have at least one file on disk.
    func storedHashes() -> Set<String> {
        let manager = FileManager.default
        var hashes: Set<String> = []
        for folder in (try? manager.contentsOfDirectory(atPath: root.path)) ?? [] {
            for name in (try? manager.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? [] {
                let sha = String(name.prefix(64))
                if ContentHash.isValid(sha) { hashes.insert(sha) }
            }
        }
        return hashes
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
