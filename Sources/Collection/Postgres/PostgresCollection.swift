import Foundation
import PlantGuideProtos
import PlantGuideStorage
import PostgresNIO

/// The collection in PostgreSQL (``PostgresCollectionSchema``), photo bytes included: several replicas share it.
///
/// Writes that touch photos lock rows in one order, plant before photo, so that they cannot deadlock: an upload
/// takes its plant (`FOR KEY SHARE`) and then its photo row; a deletion takes its plant (`FOR UPDATE`), removes
/// the links, and then takes the photos before deciding, in a statement that sees every committed link, which no
/// link shows any more. A photo row is therefore removed only when no row of its owner refers to it.
public struct PostgresCollection: CollectionRecords {
    let database: PostgresStorage

    public init(_ database: PostgresStorage) {
        self.database = database
    }

    /// Every migration of the collection's schema, in order.
    public static var migrations: [PostgresMigration] { PostgresCollectionSchema.migrations }

    // MARK: Plants

    /// One statement (one round trip) when the plant is new: the insert returns the row, and a new plant has no
    /// photos. When the id exists, the stored plant is read; should it be deleted in between, the add runs again.
    public func addPlant(_ plant: Plant, owner: String, time: Double) async throws -> (plant: Plant, created: Bool) {
        for _ in 0..<3 {
            let added = try await database.read { session in
                try await PostgresPlantRow.plants(session.query(Self.insertion(plant, owner: owner, addedAt: time, updatedAt: time)))
            }
            if let created = added.first { return (created, true) }
            if let existing = try await self.plant(id: plant.id, owner: owner) { return (existing, false) }
        }
        throw CollectionError(.aborted, "plant \(plant.id) was deleted three times while being added; retry")
    }

    public func updatePlant(id: String, owner: String, time: Double, _ change: @escaping @Sendable (inout Plant) throws -> Void) async throws -> Plant? {
        try await database.write { session in
            guard var plant = try await PostgresPlantRow.plants(session.query("""
                SELECT \(unescaped: PostgresPlantRow.columns) FROM plant WHERE owner_id = \(owner) AND id = \(id) FOR UPDATE
                """)).first else { return nil }
            try change(&plant)
            try await Self.update(session, plant, owner: owner, addedAt: nil, updatedAt: time)
            return try await Self.fetch(session, owner: owner, id: id)
        }
    }

    public func deletePlant(id: String, owner: String) async throws -> (deleted: Bool, photosRemoved: Int) {
        try await database.write { session in
            guard try await session.count("SELECT 1 FROM plant WHERE owner_id = \(owner) AND id = \(id) FOR UPDATE") > 0 else { return (false, 0) }
            let linked = try await session.all(
                "DELETE FROM plant_photo WHERE owner_id = \(owner) AND plant_id = \(id) RETURNING sha256", as: String.self)
            try await session.query("DELETE FROM plant WHERE owner_id = \(owner) AND id = \(id)")
            return (true, try await Self.removeUnlinkedPhotos(session, owner: owner, candidates: linked))
        }
    }

    public func deleteAll(owner: String) async throws -> (plants: Int, photosRemoved: Int) {
        try await database.write { session in
            let plants = try await session.count("SELECT 1 FROM plant WHERE owner_id = \(owner) ORDER BY id FOR UPDATE")
            let linked = try await session.all("DELETE FROM plant_photo WHERE owner_id = \(owner) RETURNING sha256", as: String.self)
            try await session.query("DELETE FROM identification WHERE owner_id = \(owner)")
            try await session.query("DELETE FROM journal_event WHERE owner_id = \(owner)")
            try await session.query("DELETE FROM plant WHERE owner_id = \(owner)")
            let removed = try await Self.removeUnlinkedPhotos(session, owner: owner, candidates: linked)
            // Photos no plant showed (an upload that lost its plant) go too: nothing of this owner is left.
            let unlinked = try await session.count("DELETE FROM photo WHERE owner_id = \(owner) RETURNING 1")
            return (plants, removed + unlinked)
        }
    }

    public func plant(id: String, owner: String) async throws -> Plant? {
        try await database.read { session in try await Self.fetch(session, owner: owner, id: id) }
    }

    // MARK: Helpers

    /// The plant with its photos, or nil.
    static func fetch(_ session: PostgresSession, owner: String, id: String) async throws -> Plant? {
        guard var plant = try await PostgresPlantRow.plants(session.query("""
            SELECT \(unescaped: PostgresPlantRow.columns) FROM plant WHERE owner_id = \(owner) AND id = \(id)
            """)).first else { return nil }
        plant.photos = try await PostgresPhotoRows.photos(session, owner: owner, plantIDs: [id])[id] ?? []
        return plant
    }

    /// Inserts a validated plant unless its id exists; returns whether it did.
    @discardableResult
    static func insert(_ session: PostgresSession, _ plant: Plant, owner: String, addedAt: Double, updatedAt: Double) async throws -> Bool {
        try await session.count(insertion(plant, owner: owner, addedAt: addedAt, updatedAt: updatedAt)) > 0
    }

    /// The statement inserting a plant unless its id exists, returning the new row's ``PostgresPlantRow/columns``.
    static func insertion(_ plant: Plant, owner: String, addedAt: Double, updatedAt: Double) -> PostgresQuery {
        """
        INSERT INTO plant (owner_id, id, scientific_name, common_names, family, genus, custom_name, display_name, notes, location,
                           favorite, identification_source, identification_confidence, identified_at, added_at, updated_at, search)
        VALUES (\(owner), \(plant.id), \(plant.scientificName), \(plant.commonNames), \(plant.family), \(plant.genus),
                \(plant.customName), \(PlantRow.displayName(of: plant)), \(plant.notes), \(plant.location), \(plant.favorite),
                \(plant.identificationSource.rawValue), \(plant.identificationConfidence),
                \(plant.hasIdentifiedAt ? PlantRow.seconds(plant.identifiedAt) : nil), \(addedAt), \(updatedAt),
                \(PostgresSearchText.vector(of: plant, owner: owner))::tsvector)
        ON CONFLICT (owner_id, id) DO NOTHING
        RETURNING \(unescaped: PostgresPlantRow.columns)
        """
    }

    /// Writes a validated plant's fields and times over its row (whose search words follow); `addedAt` nil keeps the
    /// stored one.
    static func update(_ session: PostgresSession, _ plant: Plant, owner: String, addedAt: Double?, updatedAt: Double) async throws {
        try await session.query("""
            UPDATE plant SET scientific_name = \(plant.scientificName), common_names = \(plant.commonNames), family = \(plant.family),
                genus = \(plant.genus), custom_name = \(plant.customName), display_name = \(PlantRow.displayName(of: plant)),
                notes = \(plant.notes), location = \(plant.location), favorite = \(plant.favorite),
                identification_source = \(plant.identificationSource.rawValue), identification_confidence = \(plant.identificationConfidence),
                identified_at = \(plant.hasIdentifiedAt ? PlantRow.seconds(plant.identifiedAt) : nil), added_at = COALESCE(\(addedAt), added_at),
                updated_at = \(updatedAt), search = \(PostgresSearchText.vector(of: plant, owner: owner))::tsvector
            WHERE owner_id = \(owner) AND id = \(plant.id)
            """)
    }

    /// Removes the photos among `candidates` that no link of `owner` shows any more; returns how many went. The
    /// rows are locked first, so that the deciding statement sees every link committed before it.
    static func removeUnlinkedPhotos(_ session: PostgresSession, owner: String, candidates: [String]) async throws -> Int {
        let shas = Array(Set(candidates)).sorted()
        guard !shas.isEmpty else { return 0 }
        try await session.query("SELECT 1 FROM photo WHERE owner_id = \(owner) AND sha256 = ANY(\(shas)) ORDER BY sha256 FOR UPDATE")
        return try await session.count("""
            DELETE FROM photo WHERE owner_id = \(owner) AND sha256 = ANY(\(shas))
                AND NOT EXISTS (SELECT 1 FROM plant_photo WHERE plant_photo.owner_id = photo.owner_id AND plant_photo.sha256 = photo.sha256)
            RETURNING 1
            """)
    }
}
