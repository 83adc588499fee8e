import Foundation
import GRDB
import PlantGuideCore
import PlantGuideImaging
import PlantGuideProtos

/// Stores and serves photos of plants: validated by decoding, deduplicated by content, with thumbnails made
/// once at upload. Access goes through the owner's plants: a photo is visible only to owners with a plant
/// showing it.
public struct PhotoStore: Sendable {
    public typealias Photo = Plantguide_Collection_V1_Photo

    let writer: any DatabaseWriter
    let files: PhotoFiles
    /// Largest photo accepted, in bytes. Default 15 MiB.
    let maxBytes: Int
    let now: @Sendable () -> Date

    public init(writer: any DatabaseWriter, folder: URL, maxBytes: Int = 15 << 20, now: @escaping @Sendable () -> Date = { Date() }) {
        self.writer = writer
        files = PhotoFiles(root: folder)
        self.maxBytes = maxBytes
        self.now = now
    }

    /// Stores `data` as a photo of plant `plantID`.
    /// - Returns: the photo, and whether the owner had these bytes already.
    /// - Throws: INVALID_ARGUMENT saying what is wrong with the image (empty, not an image, truncated, damaged,
    ///   too many pixels, too many bytes); NOT_FOUND for another owner's or a missing plant.
    public func put(_ data: Data, kind: Plantguide_Collection_V1_PhotoKind, plantID: String, owner: String) async throws -> (photo: Photo, deduplicated: Bool) {
        guard data.count <= maxBytes else {
            throw CollectionError.invalidArgument("data", .tooLong, "the photo is \(data.count) bytes; the limit is \(maxBytes) bytes")
        }
        guard try await writer.read({ db in try PlantStore.fetch(db, owner: owner, id: plantID) }) != nil else {
            throw CollectionError(.notFound, "no plant \(plantID)")
        }
        let sha: String
        let info: ImageDecoder.Info
        do {
            (sha, info) = try await BlockingWork.run { (ContentHash.sha256(data), try ImageDecoder.inspect(data)) }
            if try await !isStored(sha) { try await BlockingWork.run { try makeFiles(data, sha: sha, info: info) } }
        } catch let error as ImagingError {
            throw CollectionError.invalidArgument("data", .invalidFormat, error.message)
        }
        let time = now().timeIntervalSince1970
        let files = self.files
        return try await withFilesPresent(sha, remake: { try makeFiles(data, sha: sha, info: info) }) { db in
            // Checked again here: a DeletePlant may have removed the plant since the check above.
            guard try PlantStore.fetch(db, owner: owner, id: plantID) != nil else {
                throw CollectionError(.notFound, "no plant \(plantID)")
            }
            guard files.exist(sha, mediaType: info.format.mediaType) else { throw FilesMissing() }
            let hadIt = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plantPhoto WHERE ownerID = ? AND sha256 = ?)",
                                          arguments: [owner, sha]) ?? false
            try db.execute(sql: "INSERT OR IGNORE INTO photo VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [sha, info.format.mediaType, data.count, info.width, info.height, time])
            try db.execute(sql: "INSERT OR IGNORE INTO plantPhoto VALUES (?, ?, ?, ?, ?)",
                           arguments: [owner, plantID, sha, (kind == .unspecified ? .captured : kind).rawValue, time])
            let photo = try PhotoRows.photos(db, owner: owner, plantID: plantID).first { $0.sha256 == sha }!
            return (photo, hadIt)
        }
    }

    /// The original (`thumbnailSize` 0) or a thumbnail (256 or 1024) of a photo the owner can see.
    public func get(sha: String, thumbnailSize: Int, owner: String) async throws -> (data: Data, mediaType: String, contentSHA256: String) {
        guard ContentHash.isValid(sha) else { throw CollectionError.invalidArgument("sha256", .invalidFormat, "sha256 must be 64 lower-case hex digits") }
        guard thumbnailSize == 0 || PhotoFiles.thumbnailSizes.contains(thumbnailSize) else {
            throw CollectionError.invalidArgument("thumbnail_size", .unknownValue, "thumbnail_size must be 0, 256 or 1024")
        }
        let mediaType = try await writer.read { db in
            try String.fetchOne(db, sql: """
                SELECT photo.mediaType FROM plantPhoto CROSS JOIN photo USING (sha256) WHERE plantPhoto.ownerID = ? AND sha256 = ? LIMIT 1
                """, arguments: [owner, sha])
        }
        guard let mediaType else { throw CollectionError(.notFound, "no photo \(sha)") }
        let files = self.files
        do {
            if thumbnailSize == 0 {
                let data = try await BlockingWork.run { try Data(contentsOf: files.original(sha, mediaType: mediaType)) }
                return (data, mediaType, sha)
            }
            return try await BlockingWork.run {
                let data = try Data(contentsOf: files.thumbnail(sha, size: thumbnailSize))
                return (data, "image/jpeg", ContentHash.sha256(data))
            }
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
            throw CollectionError(.dataLoss, "the file of photo \(sha) is missing")
        }
    }

    /// Takes photo `sha` off plant `plantID` of `owner`; when no plant of anyone shows it any more, its row and
    /// files go too (decided and done under the write lock, as ``removeFiles(of:)`` does).
    /// - Returns: whether the plant showed it, and whether its files were removed.
    public func delete(sha: String, plantID: String, owner: String) async throws -> (deleted: Bool, filesRemoved: Bool) {
        guard ContentHash.isValid(sha) else { throw CollectionError.invalidArgument("sha256", .invalidFormat, "sha256 must be 64 lower-case hex digits") }
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
    public func removeFiles(of shas: [String]) async throws {
        guard !shas.isEmpty else { return }
        let files = self.files
        try await writer.write { db in
            for sha in shas where try !Self.isReferenced(db, sha) { files.remove(sha) }
        }
    }

    /// Removes photo files no row references: what an import or upload killed between writing its files and
    /// committing leaves behind. Run at start-up, before serving. Returns how many photos' files went.
    @discardableResult
    public func sweepUnreferencedFiles() throws -> Int {
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

    private static func isReferenced(_ db: Database, _ sha: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM photo WHERE sha256 = ?)", arguments: [sha]) ?? true
    }

    /// Runs `transaction` (which throws ``FilesMissing`` when the files it is about to reference are gone),
    /// remaking the files and trying again when a removal got there first.
    func withFilesPresent<Result: Sendable>(
        _ sha: String, remake: @escaping @Sendable () throws -> Void, _ transaction: @escaping @Sendable (Database) throws -> Result
    ) async throws -> Result {
        for _ in 0..<3 {
            do {
                return try await writer.write(transaction)
            } catch is FilesMissing {
                try await BlockingWork.run(remake)
            }
        }
        throw CollectionError(.aborted, "photo \(sha) was removed three times while being stored; retry")
    }

    /// Thrown inside a transaction whose photo files were removed since they were written.
    struct FilesMissing: Error {}

    /// Makes the files of a validated photo unless they exist (import).
    func storeFiles(_ data: Data, sha: String) async throws {
        guard try await !isStored(sha) else { return }
        try await BlockingWork.run { try remakeFiles(data, sha: sha) }
    }

    /// Makes the files of a validated photo, whether or not they exist (an import whose files were removed).
    func remakeFiles(_ data: Data, sha: String) throws {
        do {
            try makeFiles(data, sha: sha, info: try ImageDecoder.inspect(data))
        } catch let error as ImagingError {
            throw CollectionError.invalidArgument("archive", .invalidFormat, "photo \(sha): \(error.message)")
        }
    }

    private func isStored(_ sha: String) async throws -> Bool {
        try await writer.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM photo WHERE sha256 = ?)", arguments: [sha]) ?? false }
    }

    /// Decodes once at the largest thumbnail size, makes every thumbnail, and writes them and the original.
    private func makeFiles(_ data: Data, sha: String, info: ImageDecoder.Info) throws {
        let largest = PhotoFiles.thumbnailSizes.max()!
        let decoded = try ImageDecoder.decode(data, maxLongSide: largest)
        for size in PhotoFiles.thumbnailSizes {
            let fitted = decoded.fittingSize(longSide: size)
            let jpeg = try JPEGCodec.encode(decoded.resized(width: fitted.width, height: fitted.height))
            try files.write(Data(jpeg), to: files.thumbnail(sha, size: size))
        }
        try files.write(data, to: files.original(sha, mediaType: info.format.mediaType))
    }
}
