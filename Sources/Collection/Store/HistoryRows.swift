import Foundation
import PlantGuideProtos

/// Identifications and journal events to and from the columns both backends store.
enum HistoryRows {
    typealias Identification = Plantguide_Collection_V1_IdentificationRecord
    typealias JournalEvent = Plantguide_Collection_V1_JournalEvent

    /// The top results, stored as the bytes of an IdentificationRecord holding only them.
    static func topResults(of record: Identification) throws -> Data {
        try Identification.with { $0.topResults = record.topResults }.serializedData()
    }

    static func identification(
        topResults: Data, id: String, plantID: String, identifiedAt: Double, source: Int, confidence: Double,
        location: (latitude: Double, longitude: Double)?, photoSHA256: String
    ) throws -> Identification {
        var record = try Identification(serializedBytes: topResults)
        record.id = id
        record.plantID = plantID
        record.identifiedAt = PlantRow.timestamp(identifiedAt)
        record.source = .init(rawValue: source) ?? .unspecified
        record.confidence = confidence
        if let location {
            record.location = .with {
                $0.latitude = location.latitude
                $0.longitude = location.longitude
            }
        }
        record.photoSha256 = photoSHA256
        return record
    }

    static func event(id: String, plantID: String, kind: Int, occurredAt: Double, note: String) -> JournalEvent {
        var event = JournalEvent()
        event.id = id
        event.plantID = plantID
        event.kind = .init(rawValue: kind) ?? .unspecified
        event.occurredAt = PlantRow.timestamp(occurredAt)
        event.note = note
        return event
    }
}
