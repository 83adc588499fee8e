import GRDB
import PlantGuideProtos

/// Plants as rows of SQLite's table `plant`.
extension PlantRow {
    static func plant(_ row: Row) -> Plant {
        var plant = Plant()
        plant.id = row["id"]
        plant.ownerID = row["ownerID"]
        plant.scientificName = row["scientificName"]
        plant.commonNames = decodeNames(row["commonNames"])
        plant.family = row["family"]
        plant.genus = row["genus"]
        plant.customName = row["customName"]
        plant.notes = row["notes"]
        plant.location = row["location"]
        plant.favorite = row["favorite"]
        plant.identificationSource = .init(rawValue: row["identificationSource"]) ?? .unspecified
        plant.identificationConfidence = row["identificationConfidence"]
        if let identified: Double = row["identifiedAt"] { plant.identifiedAt = timestamp(identified) }
        plant.addedAt = timestamp(row["addedAt"])
        plant.updatedAt = timestamp(row["updatedAt"])
        return plant
    }

    /// Column values of the person-editable fields, for INSERT and UPDATE.
    static func editableColumns(_ plant: Plant) -> [String: (any DatabaseValueConvertible)?] {
        [
            "scientificName": plant.scientificName,
            "commonNames": encodeNames(plant.commonNames),
            "family": plant.family,
            "genus": plant.genus,
            "customName": plant.customName,
            "displayName": displayName(of: plant),
            "notes": plant.notes,
            "location": plant.location,
            "favorite": plant.favorite,
            "identificationSource": plant.identificationSource.rawValue,
            "identificationConfidence": plant.identificationConfidence,
            "identifiedAt": plant.hasIdentifiedAt ? seconds(plant.identifiedAt) : nil,
        ]
    }
}
