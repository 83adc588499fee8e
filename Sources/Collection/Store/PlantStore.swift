import Foundation
import PlantGuideProtos
import PlantGuideRPCCore
import SwiftProtobuf

/// Intention-named reads and writes of plants, always scoped by owner: no method reads or changes another
/// owner's rows (another owner's plant is simply not found). It validates what callers send; the records
/// (SQLite or PostgreSQL) store it.
public struct PlantStore: Sendable {
    public typealias Plant = Plantguide_Collection_V1_Plant

    let records: any CollectionRecords
    let now: @Sendable () -> Date

    public init(records: any CollectionRecords, now: @escaping @Sendable () -> Date = { Date() }) {
        self.records = records
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
        let (stored, created) = try await records.addPlant(plant, owner: owner, time: now().timeIntervalSince1970)
        guard created || Self.sameContent(stored, plant) else {
            throw CollectionError(.alreadyExists, "plant \(plant.id) exists with other content")
        }
        return (stored, created)
    }

    /// Changes the fields named in `mask` (paths as in the Plant message, snake_case or lowerCamelCase).
    public func update(_ plant: Plant, mask: Google_Protobuf_FieldMask, owner: String) async throws -> Plant {
        guard !mask.paths.isEmpty else { throw CollectionError.invalidArgument("update_mask", .required, "update_mask is empty") }
        let fields = try mask.paths.map(Self.editableField(for:))
        let updated = try await records.updatePlant(id: plant.id, owner: owner, time: now().timeIntervalSince1970) { stored in
            for field in fields { field.copy(plant, &stored) }
            try Self.validate(stored, requireName: true)
        }
        guard let updated else { throw CollectionError(.notFound, "no plant \(plant.id)") }
        return updated
    }

    /// Deletes a plant with its photos links, identifications and journal, in one transaction. Returns whether it
    /// existed and how many photos went with it (no other plant of the owner showed them).
    public func delete(id: String, owner: String) async throws -> (deleted: Bool, photosRemoved: Int) {
        try await records.deletePlant(id: id, owner: owner)
    }

    /// Deletes every row of `owner`; returns how many plants and photos went.
    public func deleteAll(owner: String) async throws -> (plants: Int, photosRemoved: Int) {
        try await records.deleteAll(owner: owner)
    }

    public func setFavorite(id: String, favorite: Bool, owner: String) async throws -> Plant {
        var plant = Plant()
        plant.id = id
        plant.favorite = favorite
        return try await update(plant, mask: .init(protoPaths: ["favorite"]), owner: owner)
    }

    // MARK: Reads

    public func plant(id: String, owner: String) async throws -> Plant {
        guard let plant = try await records.plant(id: id, owner: owner) else { throw CollectionError(.notFound, "no plant \(id)") }
        return plant
    }

    // MARK: Helpers

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
