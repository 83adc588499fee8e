import Foundation
import GRDB
import PlantGuideProtos
import PlantGuideRPC
import SwiftProtobuf

/// Intention-named reads and writes of plants, always scoped by owner: no method reads or changes another
/// owner's rows (another owner's plant is simply not found).
public struct PlantStore: Sendable {
    public typealias Plant = Plantguide_Collection_V1_Plant

    let writer: any DatabaseWriter
    let now: @Sendable () -> Date

    public init(writer: any DatabaseWriter, now: @escaping @Sendable () -> Date = { Date() }) {
        self.writer = writer
        self.now = now
    }

    /// Limits on free text, so that one client cannot fill the disk through a notes field.
    static let maxTextLength = 10_000
    static let maxNameLength = 500

    // MARK: Writes

    /// Adds `plant` under its client-chosen id. Adding the same id again with the same content returns the stored
    /// plant (`created` false); with other content it is ALREADY_EXISTS.
    public func add(_ plant: Plant, owner: String) async throws -> (plant: Plant, created: Bool) {
        try Self.validate(plant, requireName: true)
        let time = now().timeIntervalSince1970
        return try await writer.write { db in
            if let existing = try Self.fetch(db, owner: owner, id: plant.id) {
                guard Self.sameContent(existing, plant) else {
                    throw CollectionError(.alreadyExists, "plant \(plant.id) exists with other content")
                }
                return (existing, false)
            }
            try Self.insert(db, plant, owner: owner, addedAt: time, updatedAt: time)
            return (try Self.fetch(db, owner: owner, id: plant.id)!, true)
        }
    }

    /// Changes the fields named in `mask` (paths as in the Plant message, snake_case or lowerCamelCase).
    public func update(_ plant: Plant, mask: Google_Protobuf_FieldMask, owner: String) async throws -> Plant {
        guard !mask.paths.isEmpty else { throw CollectionError.invalidArgument("update_mask", .required, "update_mask is empty") }
        let fields = try mask.paths.map(Self.editableField(for:))
        let time = now().timeIntervalSince1970
        return try await writer.write { db in
            guard var stored = try Self.fetch(db, owner: owner, id: plant.id) else {
                throw CollectionError(.notFound, "no plant \(plant.id)")
            }
            for field in fields { field.copy(plant, &stored) }
            try Self.validate(stored, requireName: true)
            var columns = PlantRow.editableColumns(stored)
            columns["updatedAt"] = time
            let names = Array(columns.keys)
            try db.execute(
                sql: "UPDATE plant SET \(names.map { "\($0) = ?" }.joined(separator: ", ")) WHERE ownerID = ? AND id = ?",
                arguments: StatementArguments(names.map { columns[$0]! } + [owner, plant.id]))
            return try Self.fetch(db, owner: owner, id: plant.id)!
        }
    }

    /// Deletes a plant with its photos links, identifications and journal (foreign keys cascade), in one
    /// transaction. Returns whether it existed and the photos no plant references any more, for the caller to
    /// remove from disk after the commit.
    public func delete(id: String, owner: String) async throws -> (deleted: Bool, orphanedPhotos: [String]) {
        try await writer.write { db in
            let linked = try String.fetchAll(db, sql: "SELECT sha256 FROM plantPhoto WHERE ownerID = ? AND plantID = ?", arguments: [owner, id])
            try db.execute(sql: "DELETE FROM plant WHERE ownerID = ? AND id = ?", arguments: [owner, id])
            let deleted = db.changesCount > 0
            return (deleted, try Self.removeOrphanPhotos(db, candidates: linked))
        }
    }

    /// Deletes every row of `owner`; returns how many plants went and the photos no one references any more.
    public func deleteAll(owner: String) async throws -> (plants: Int, orphanedPhotos: [String]) {
        try await writer.write { db in
            let linked = try String.fetchAll(db, sql: "SELECT DISTINCT sha256 FROM plantPhoto WHERE ownerID = ?", arguments: [owner])
            try db.execute(sql: "DELETE FROM identification WHERE ownerID = ?", arguments: [owner])
            try db.execute(sql: "DELETE FROM plant WHERE ownerID = ?", arguments: [owner])
            return (db.changesCount, try Self.removeOrphanPhotos(db, candidates: linked))
        }
    }

    public func setFavorite(id: String, favorite: Bool, owner: String) async throws -> Plant {
        var plant = Plant()
        plant.id = id
        plant.favorite = favorite
        return try await update(plant, mask: .init(protoPaths: ["favorite"]), owner: owner)
    }

    // MARK: Reads

    public func plant(id: String, owner: String) async throws -> Plant {
        try await writer.read { db in
            guard let plant = try Self.fetch(db, owner: owner, id: id) else {
                throw CollectionError(.notFound, "no plant \(id)")
            }
            return plant
        }
    }

    static func fetch(_ db: Database, owner: String, id: String) throws -> Plant? {
        guard var plant = try Row.fetchOne(db, sql: "SELECT * FROM plant WHERE ownerID = ? AND id = ?", arguments: [owner, id])
            .map(PlantRow.plant) else { return nil }
        plant.photos = try PhotoRows.photos(db, owner: owner, plantID: id)
        return plant
    }

    // MARK: Helpers

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

    private static func removeOrphanPhotos(_ db: Database, candidates: [String]) throws -> [String] {
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

    /// Whether a retried add carries what is stored: the client's fields, as the database keeps them.
    private static func sameContent(_ stored: Plant, _ proposed: Plant) -> Bool {
        func clientFields(_ plant: Plant) -> Plant {
            var plant = plant
            plant.ownerID = ""
            plant.clearAddedAt()
            plant.clearUpdatedAt()
            plant.photos = []
            if plant.hasIdentifiedAt { plant.identifiedAt = PlantRow.timestamp(PlantRow.seconds(plant.identifiedAt)) }
            return plant
        }
        return clientFields(stored) == clientFields(proposed)
    }

    static func validate(_ plant: Plant, requireName: Bool) throws {
        guard !plant.id.isEmpty, plant.id.count <= 200 else {
            throw CollectionError.invalidArgument("plant.id", .outOfRange, "id must be 1 to 200 characters")
        }
        if requireName && plant.scientificName.trimmingCharacters(in: .whitespaces).isEmpty {
            throw CollectionError.invalidArgument("plant.scientific_name", .required, "scientific_name is empty")
        }
        for (name, value) in [("scientific_name", plant.scientificName), ("family", plant.family), ("genus", plant.genus),
                              ("custom_name", plant.customName), ("location", plant.location)]
        where value.count > maxNameLength {
            throw CollectionError.invalidArgument("plant.\(name)", .tooLong, "\(name) is longer than \(maxNameLength) characters")
        }
        guard plant.notes.count <= maxTextLength else {
            throw CollectionError.invalidArgument("plant.notes", .tooLong, "notes are longer than \(maxTextLength) characters")
        }
        guard plant.commonNames.count <= 50, plant.commonNames.allSatisfy({ $0.count <= maxNameLength }) else {
            throw CollectionError.invalidArgument("plant.common_names", .tooLong, "common_names: at most 50 names of \(maxNameLength) characters")
        }
        guard (0...1).contains(plant.identificationConfidence) else {
            throw CollectionError.invalidArgument("plant.identification_confidence", .outOfRange, "identification_confidence must be between 0 and 1")
        }
        for (field, present, value) in [("added_at", plant.hasAddedAt, plant.addedAt), ("updated_at", plant.hasUpdatedAt, plant.updatedAt),
                                        ("identified_at", plant.hasIdentifiedAt, plant.identifiedAt)] where present {
            try validateTimestamp(value, field: "plant.\(field)")
        }
    }

    /// Refuses a timestamp outside proto3's range (which no export could write back).
    static func validateTimestamp(_ timestamp: Google_Protobuf_Timestamp, field: String) throws {
        guard WireTimestamp.isValid(timestamp) else {
            throw CollectionError.invalidArgument(field, .outOfRange, "\(field) must lie between 0001-01-01 and 9999-12-31, with nanos from 0 to 999999999")
        }
    }
}
