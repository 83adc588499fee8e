import Foundation
import GRDB
import Logging
import PlantGuideStorage

/// The collection in one SQLite file (``CollectionDatabase``) with the photo files in a folder beside it
/// (``PhotoFiles``): the default for one instance. Photo files are shared by content across users and removed,
/// under the database's write lock, when no row refers to them any more.
public struct SQLiteCollection: CollectionRecords {
    let writer: TracedDatabase
    let files: PhotoFiles

    public init(writer: any DatabaseWriter, photoFolder: URL) {
        self.writer = TracedDatabase(writer)
        files = PhotoFiles(root: photoFolder)
    }

    /// Opens (creating and migrating) `<folder>/collection.sqlite` with the photos in `<folder>/photos`, removes
    /// the files of photos no row references (what a process killed mid-upload leaves) and reports rows that hold
    /// times out of the contract's range.
    public static func open(folder: URL, logger: Logger) throws -> SQLiteCollection {
        let database = try CollectionDatabase.open(path: folder.appendingPathComponent("collection.sqlite").path)
        let collection = SQLiteCollection(writer: database, photoFolder: folder.appendingPathComponent("photos", isDirectory: true))
        let swept = try collection.sweepUnreferencedFiles()
        if swept > 0 { logger.notice("removed the files of photos no row references", metadata: ["photos": "\(swept)"]) }
        let outOfRange = try database.read(StoredValueAudit.outOfRangeRows)
        if !outOfRange.isEmpty {
            logger.warning("rows hold times outside the Timestamp range (written by older versions); they are served clamped",
                           metadata: ["rows": "\(outOfRange)"])
        }
        return collection
    }

    // MARK: Plants

    public func addPlant(_ plant: Plant, owner: String, time: Double) async throws -> (plant: Plant, created: Bool) {
        try await writer.write { db in
            if let existing = try Self.fetch(db, owner: owner, id: plant.id) { return (existing, false) }
            try Self.insert(db, plant, owner: owner, addedAt: time, updatedAt: time)
            return (try Self.fetch(db, owner: owner, id: plant.id)!, true)
        }
    }

    public func updatePlant(id: String, owner: String, time: Double, _ change: @escaping @Sendable (inout Plant) throws -> Void) async throws -> Plant? {
        try await writer.write { db in
            guard var stored = try Self.fetch(db, owner: owner, id: id) else { return nil }
            try change(&stored)
            var columns = PlantRow.editableColumns(stored)
            columns["updatedAt"] = time
            let names = Array(columns.keys)
            try db.execute(
                sql: "UPDATE plant SET \(names.map { "\($0) = ?" }.joined(separator: ", ")) WHERE ownerID = ? AND id = ?",
                arguments: StatementArguments(names.map { columns[$0]! } + [owner, id]))
            return try Self.fetch(db, owner: owner, id: id)!
        }
    }

    public func deletePlant(id: String, owner: String) async throws -> (deleted: Bool, photosRemoved: Int) {
        let (deleted, orphaned) = try await writer.write { db in
            let linked = try String.fetchAll(db, sql: "SELECT sha256 FROM plantPhoto WHERE ownerID = ? AND plantID = ?", arguments: [owner, id])
            try db.execute(sql: "DELETE FROM plant WHERE ownerID = ? AND id = ?", arguments: [owner, id])
            let deleted = db.changesCount > 0
            return (deleted, try Self.removeOrphanPhotos(db, candidates: linked))
        }
        try await removeFiles(of: orphaned)
        return (deleted, orphaned.count)
    }

    public func deleteAll(owner: String) async throws -> (plants: Int, photosRemoved: Int) {
        let (count, orphaned) = try await writer.write { db in
            let linked = try String.fetchAll(db, sql: "SELECT DISTINCT sha256 FROM plantPhoto WHERE ownerID = ?", arguments: [owner])
            try db.execute(sql: "DELETE FROM identification WHERE ownerID = ?", arguments: [owner])
            try db.execute(sql: "DELETE FROM plant WHERE ownerID = ?", arguments: [owner])
            return (db.changesCount, try Self.removeOrphanPhotos(db, candidates: linked))
        }
        try await removeFiles(of: orphaned)
        return (count, orphaned.count)
    }

    public func plant(id: String, owner: String) async throws -> Plant? {
        try await writer.read { db in try Self.fetch(db, owner: owner, id: id) }
    }

    static func fetch(_ db: Database, owner: String, id: String) throws -> Plant? {
        guard var plant = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM plant WHERE ownerID = ? AND id = ?"), arguments: [owner, id])
            .map(PlantRow.plant) else { return nil }
        plant.photos = try PhotoRows.photos(db, owner: owner, plantID: id)
        return plant
    }

    /// Inserts a plant row (validated by the caller).
    static func insert(_ db: Database, _ plant: Plant, owner: String, addedAt: Double, updatedAt: Double) throws {
        var columns = PlantRow.editableColumns(plant)
        columns["ownerID"] = owner
        columns["id"] = plant.id
        columns["addedAt"] = addedAt
        columns["updatedAt"] = updatedAt
        let names = Array(columns.keys)
        try db.execute(
            sql: "INSERT INTO plant (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))",
            arguments: StatementArguments(names.map { columns[$0]! }))
    }

    /// Deletes the rows of the photos among `candidates` that no plant shows any more; returns their hashes, whose
    /// files go after the commit.
    static func removeOrphanPhotos(_ db: Database, candidates: [String]) throws -> [String] {
        var orphaned: [String] = []
        for sha in Set(candidates) {
            let referenced = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plantPhoto WHERE sha256 = ?)", arguments: [sha]) ?? true
            if !referenced {
                try db.execute(sql: "DELETE FROM photo WHERE sha256 = ?", arguments: [sha])
                orphaned.append(sha)
            }
        }
        return orphaned
    }
}
