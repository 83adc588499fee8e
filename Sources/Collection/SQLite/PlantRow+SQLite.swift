import Foundation
import GRDB
import PlantGuideProtos

/// Plants as rows of SQLite's table `plant`.
extension PlantRow {
    /// The plant of one row (its columns found by name).
    static func plant(_ row: Row) -> Plant {
        plant(row, columns: Columns(row))
    }

    /// The plants of rows of one statement, in their order.
    static func plants(_ rows: [Row]) -> [Plant] {
        guard let first = rows.first else { return [] }
        let columns = Columns(first)
        return rows.map { plant($0, columns: columns) }
    }

    /// The plant of a row whose columns are at `columns`: a page's rows share one statement, so their columns
    /// are found once, not by name in every row (GRDB compares each name lowercased: a third of a page's cost).
    static func plant(_ row: Row, columns: Columns) -> Plant {
        var plant = Plant()
        plant.id = row[columns.id]
        plant.ownerID = row[columns.ownerID]
        plant.scientificName = row[columns.scientificName]
        plant.commonNames = decodeNames(row[columns.commonNames])
        plant.family = row[columns.family]
        plant.genus = row[columns.genus]
        plant.customName = row[columns.customName]
        plant.notes = row[columns.notes]
        plant.location = row[columns.location]
        plant.favorite = row[columns.favorite]
        plant.identificationSource = .init(rawValue: row[columns.identificationSource]) ?? .unspecified
        plant.identificationConfidence = row[columns.identificationConfidence]
        if let identified: Double = row[columns.identifiedAt] { plant.identifiedAt = timestamp(identified) }
        plant.addedAt = timestamp(row[columns.addedAt])
        plant.updatedAt = timestamp(row[columns.updatedAt])
        return plant
    }

    /// Where a statement's rows hold the plant's columns.
    struct Columns {
        let id, ownerID, scientificName, commonNames, family, genus, customName, notes, location, favorite: Int
        let identificationSource, identificationConfidence, identifiedAt, addedAt, updatedAt: Int

        /// The columns of `row`'s statement (a row of table `plant`, every column selected).
        init(_ row: Row) {
            func index(_ name: String) -> Int {
                guard let index = row.columnIndex(named: name) else { preconditionFailure("a plant row without column \(name)") }
                return index
            }
            id = index("id")
            ownerID = index("ownerID")
            scientificName = index("scientificName")
            commonNames = index("commonNames")
            family = index("family")
            genus = index("genus")
            customName = index("customName")
            notes = index("notes")
            location = index("location")
            favorite = index("favorite")
            identificationSource = index("identificationSource")
            identificationConfidence = index("identificationConfidence")
            identifiedAt = index("identifiedAt")
            addedAt = index("addedAt")
            updatedAt = index("updatedAt")
        }
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

extension Row {
    /// The index of the column named `name` (compared as SQLite compares names, without case), for reading many
    /// rows of one statement by index.
    func columnIndex(named name: String) -> Int? {
        columnNames.firstIndex { $0.caseInsensitiveCompare(name) == .orderedSame }.map { distance(from: startIndex, to: $0) }
    }
}
