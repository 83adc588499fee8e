import GRDB
import PlantGuideProtos
import PlantGuideStorage

/// Plants as rows of SQLite's table `plant`.
extension PlantRow {
    /// The plants of rows of one statement, in their order, each column found once.
    static func plants(_ rows: [Row]) -> [Plant] {
        guard let first = rows.first else { return [] }
        let columns = ColumnIndices<Column>(first)
        return rows.map { plant($0, columns: columns) }
    }

    /// The plant of one row.
    static func plant(_ row: Row) -> Plant {
        plant(row, columns: ColumnIndices(row))
    }

    private static func plant(_ row: Row, columns: ColumnIndices<Column>) -> Plant {
        var plant = Plant()
        plant.id = row[columns[.id]]
        plant.ownerID = row[columns[.ownerID]]
        plant.scientificName = row[columns[.scientificName]]
        plant.commonNames = decodeNames(row[columns[.commonNames]])
        plant.family = row[columns[.family]]
        plant.genus = row[columns[.genus]]
        plant.customName = row[columns[.customName]]
        plant.notes = row[columns[.notes]]
        plant.location = row[columns[.location]]
        plant.favorite = row[columns[.favorite]]
        plant.identificationSource = .init(rawValue: row[columns[.identificationSource]]) ?? .unspecified
        plant.identificationConfidence = row[columns[.identificationConfidence]]
        if let identified: Double = row[columns[.identifiedAt]] { plant.identifiedAt = timestamp(identified) }
        plant.addedAt = timestamp(row[columns[.addedAt]])
        plant.updatedAt = timestamp(row[columns[.updatedAt]])
        return plant
    }

    /// The columns of table `plant` that make a ``Plant``.
    private enum Column: Int, StatementColumns {
        case id, ownerID, scientificName, commonNames, family, genus, customName, notes, location, favorite
        case identificationSource, identificationConfidence, identifiedAt, addedAt, updatedAt

        static let names = allCases.map { "\($0)" }
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
