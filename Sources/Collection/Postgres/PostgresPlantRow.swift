import Foundation
import PlantGuideProtos
import PlantGuideStorage
import PostgresNIO

/// Plants as rows of PostgreSQL's table `plant`.
enum PostgresPlantRow {
    typealias Plant = Plantguide_Collection_V1_Plant

    /// The columns ``plants(_:)`` decodes, in its order.
    static let columns = """
        owner_id, id, scientific_name, common_names, family, genus, custom_name, notes, location, favorite, \
        identification_source, identification_confidence, identified_at, added_at, updated_at
        """


    /// The plants of rows selecting ``columns`` (and possibly more after them), without their photos.
    static func plants(_ rows: PostgresRowSequence) async throws -> [Plant] {
        var plants: [Plant] = []
        for try await row in rows {
            plants.append(try plant(row))
        }
        return plants
    }

    /// The plant of a row selecting ``columns`` first.
    static func plant(_ row: PostgresRow) throws -> Plant {
        let cells = Array(row)
        var plant = Plant()
        plant.ownerID = try cells[0].decode(String.self)
        plant.id = try cells[1].decode(String.self)
        plant.scientificName = try cells[2].decode(String.self)
        plant.commonNames = try cells[3].decode([String].self)
        plant.family = try cells[4].decode(String.self)
        plant.genus = try cells[5].decode(String.self)
        plant.customName = try cells[6].decode(String.self)
        plant.notes = try cells[7].decode(String.self)
        plant.location = try cells[8].decode(String.self)
        plant.favorite = try cells[9].decode(Bool.self)
        plant.identificationSource = .init(rawValue: try cells[10].decode(Int.self)) ?? .unspecified
        plant.identificationConfidence = try cells[11].decode(Double.self)
        if let identified = try cells[12].decode(Double?.self) { plant.identifiedAt = PlantRow.timestamp(identified) }
        plant.addedAt = PlantRow.timestamp(try cells[13].decode(Double.self))
        plant.updatedAt = PlantRow.timestamp(try cells[14].decode(Double.self))
        return plant
    }
}

/// Photo metadata of PostgreSQL's `photo` rows, through the owner's links in `plant_photo`.
enum PostgresPhotoRows {
    typealias Photo = Plantguide_Collection_V1_Photo

    /// The photos of several plants (one query for a page), newest first, by plant id.
    static func photos(_ session: PostgresSession, owner: String, plantIDs: [String]) async throws -> [String: [Photo]] {
        guard !plantIDs.isEmpty else { return [:] }
        var photos: [String: [Photo]] = [:]
        let rows = try await session.query("""
            SELECT plant_photo.plant_id, photo.sha256, plant_photo.kind, photo.size_bytes, photo.media_type, photo.width, photo.height,
                   plant_photo.added_at
            FROM plant_photo JOIN photo USING (owner_id, sha256)
            WHERE plant_photo.owner_id = \(owner) AND plant_photo.plant_id = ANY(\(plantIDs))
            ORDER BY plant_photo.added_at DESC, photo.sha256
            """)
        for try await (plantID, sha, kind, size, mediaType, width, height, added) in rows.decode((String, String, Int, Int, String, Int, Int, Double).self) {
            photos[plantID, default: []].append(.with {
                $0.sha256 = sha
                $0.kind = .init(rawValue: kind) ?? .unspecified
                $0.sizeBytes = UInt64(size)
                $0.mediaType = mediaType
                $0.width = UInt32(width)
                $0.height = UInt32(height)
                $0.addedAt = PlantRow.timestamp(added)
            })
        }
        return photos
    }
}
