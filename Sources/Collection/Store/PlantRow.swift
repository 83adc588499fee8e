import Foundation
import GRDB
import PlantGuideProtos
import PlantGuideRPC
import SwiftProtobuf

/// Plants as rows: the columns of table `plant` to and from the wire message.
enum PlantRow {
    typealias Plant = Plantguide_Collection_V1_Plant

    /// The name a person sees: custom name, else first common name, else scientific name.
    static func displayName(of plant: Plant) -> String {
        if !plant.customName.isEmpty { return plant.customName }
        return plant.commonNames.first ?? plant.scientificName
    }

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

    static func encodeNames(_ names: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(names)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// JSONSerialization rather than JSONDecoder: on Linux it is several times faster, and lists read this per row.
    static func decodeNames(_ text: String) -> [String] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String] ?? []
    }

    /// A stored time as a Timestamp, clamped into proto3's range: a row written by older code must never stop a
    /// read or an export.
    static func timestamp(_ seconds: Double) -> Google_Protobuf_Timestamp {
        WireTimestamp.clamped(seconds)
    }

    static func seconds(_ timestamp: Google_Protobuf_Timestamp) -> Double {
        Double(timestamp.seconds) + Double(timestamp.nanos) / 1e9
    }
}
