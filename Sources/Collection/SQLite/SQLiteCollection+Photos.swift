import Foundation
import GRDB
import PlantGuideCore
import PlantGuideProtos

/// Photos in SQLite: a row per content hash (shared by every user showing those bytes), the owners' links to
/// their plants, and the files under the photo folder. Files are written before the row that references them
/// commits and removed only under the write lock when no row references them, so an acknowledged photo is never
/// lost to a concurrent deletion.
extension SQLiteCollection {
    public func putPhoto(_ upload: PhotoUpload, kind: Plantguide_Collection_V1_PhotoKind, plantID: String, owner: String, time: Double)
        async throws -> (photo: Photo, deduplicated: Bool)? {
        let sha = upload.sha256
        if try await !isStored(sha) { try await makeFiles(upload) }
        let files = self.files
        return try await withFilesPresent(sha, remake: { try await makeFiles(upload) }) { db in
            guard try SQLiteCollection.fetch(db, owner: owner, id: plantID) != nil else { return nil }
            guard files.exist(sha, mediaType: upload.mediaType) else { throw FilesMissing() }
            let hadIt = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plantPhoto WHERE ownerID = ? AND sha256 = ?)",
                                          arguments: [owner, sha]) ?? false
            try Self.insertPhoto(db, upload, time: time)
            try db.execute(sql: "INSERT OR IGNORE INTO plantPhoto VALUES (?, ?, ?, ?, ?)",
                           arguments: [owner, plantID, sha, (kind == .unspecified ? .captured : kind).rawValue, time])
            let photo = try PhotoRows.photos(db, owner: owner, plantID: plantID).first { $0.sha256 == sha }!
            return (photo, hadIt)
        }
    }

    public func photoBytes(sha: String, thumbnailSize: Int, owner: String) async throws -> (data: Data, mediaType: String)? {
        let mediaType = try await writer.read { db in
            try String.fetchOne(db, sql: """
                SELECT photo.mediaType FROM plantPhoto CROSS JOIN photo USING (sha256) WHERE plantPhoto.ownerID = ? AND sha256 = ? LIMIT 1
                """, arguments: [owner, sha])
        }
        guard let mediaType else { return nil }
        let files = self.files
        do {
            if thumbnailSize == 0 {
                return (try await BlockingWork.run { try Data(contentsOf: files.original(sha, mediaType: mediaType)) }, mediaType)
            }
            return (try await BlockingWork.run { try Data(contentsOf: files.thumbnail(sha, size: thumbnailSize)) }, "image/jpeg")
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
            throw CollectionError(.dataLoss, "the file of photo \(sha) is missing")
        }
    }

    public func deletePhoto(sha: String, plantID: String, owner: String) async throws -> (deleted: Bool, removed: Bool) {
        let files = self.files
        return try await writer.write { db in
            try db.execute(sql: "DELETE FROM plantPhoto WHERE ownerID = ? AND plantID = ? AND sha256 = ?", arguments: [owner, plantID, sha])
            guard db.changesCount > 0 else { return (false, false) }
            let shown = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plantPhoto WHERE sha256 = ?)", arguments: [sha]) ?? true
            guard !shown else { return (true, false) }
            try db.execute(sql: "DELETE FROM photo WHERE sha256 = ?", arguments: [sha])
            files.remove(sha)
            return (true, true)
        }
    }

    /// Deletes the files of photos that no row references, deciding and removing under the database's write
    /// lock: an upload of the same bytes either committed first (and its row keeps the files) or commits after
    /// (and, finding them gone, writes them again). An acknowledged photo is never lost.
    func removeFiles(of shas: [String]) async throws {
        guard !shas.isEmpty else { return }
        let files = self.files
        try await writer.write { db in
            for sha in shas where try !Self.isReferenced(db, sha) { files.remove(sha) }
        }
    }

    /// Removes photo files no row references: what an import or upload killed between writing its files and
    /// committing leaves behind. Run at start-up, before serving. Returns how many photos' files went.
    func sweepUnreferencedFiles() throws -> Int {
        let files = self.files
        return try writer.write { db in
            var removed = 0
            for sha in files.storedHashes() where try !Self.isReferenced(db, sha) {
                files.remove(sha)
                removed += 1
            }
            return removed
        }
    }

    static func insertPhoto(_ db: Database, _ upload: PhotoUpload, time: Double) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO photo VALUES (?, ?, ?, ?, ?, ?)",
                       arguments: [upload.sha256, upload.mediaType, upload.data.count, upload.width, upload.height, time])
    }

    private static func isReferenced(_ db: Database, _ sha: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM photo WHERE sha256 = ?)", arguments: [sha]) ?? true
    }

    /// Runs `transaction` (which throws ``FilesMissing`` when the files it is about to reference are gone),
    /// remaking the files and trying again when a removal got there first.
    func withFilesPresent<Result: Sendable>(
        _ sha: String, remake: @escaping @Sendable () async throws -> Void, _ transaction: @escaping @Sendable (Database) throws -> Result
    ) async throws -> Result {
        for _ in 0..<3 {
            do {
                return try await writer.write(transaction)
            } catch is FilesMissing {
                try await remake()
            }
        }
        throw CollectionError(.aborted, "photo \(sha) was removed three times while being stored; retry")
    }

    /// Thrown inside a transaction whose photo files were removed since they were written.
    struct FilesMissing: Error {}

    func isStored(_ sha: String) async throws -> Bool {
        try await writer.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM photo WHERE sha256 = ?)", arguments: [sha]) ?? false }
    }

    /// Writes every thumbnail and the original (thumbnails first: the original's presence does not prove them).
    func makeFiles(_ upload: PhotoUpload) async throws {
        let thumbnails = try await upload.thumbnails()
        let files = self.files
        try await BlockingWork.run {
            for (size, jpeg) in thumbnails { try files.write(jpeg, to: files.thumbnail(upload.sha256, size: size)) }
            try files.write(upload.data, to: files.original(upload.sha256, mediaType: upload.mediaType))
        }
    }
}
