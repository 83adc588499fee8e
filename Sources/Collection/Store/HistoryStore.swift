import Foundation
import PlantGuideProtos
import SwiftProtobuf

/// Identification history and the care journal, scoped by owner. Adds are idempotent on the client's ids.
public struct HistoryStore: Sendable {
    public typealias Identification = Plantguide_Collection_V1_IdentificationRecord
    public typealias JournalEvent = Plantguide_Collection_V1_JournalEvent

    let records: any CollectionRecords

    public init(records: any CollectionRecords) {
        self.records = records
    }

    /// Stores an identification (of an existing plant, or of none). Adding the same id again is a no-op.
    public func add(_ record: Identification, owner: String) async throws -> (record: Identification, created: Bool) {
        guard !record.id.isEmpty, record.id.count <= 200 else {
            throw CollectionError.invalidArgument("identification.id", .outOfRange, "id must be 1 to 200 characters")
        }
        guard (0...1).contains(record.confidence) else {
            throw CollectionError.invalidArgument("identification.confidence", .outOfRange, "confidence must be between 0 and 1")
        }
        guard record.topResults.count <= 50 else { throw CollectionError.invalidArgument("identification.top_results", .tooLong, "at most 50 top results") }
        if record.hasLocation { try record.location.validate(field: "identification.location") }
        if record.hasIdentifiedAt { try PlantStore.validateTimestamp(record.identifiedAt, field: "identification.identified_at") }
        var record = record
        if !record.hasIdentifiedAt { record.identifiedAt = Google_Protobuf_Timestamp(date: Date()) }
        guard let added = try await records.addIdentification(record, owner: owner) else {
            throw CollectionError(.notFound, "no plant \(record.plantID)")
        }
        return added
    }

    /// Newest first, optionally of one plant; pages of `pageSize` (≤ 500) with an offset token.
    public func identifications(plantID: String, pageSize: Int, pageToken: String, owner: String) async throws -> ([Identification], String) {
        let (size, offset) = try Self.page(pageSize, pageToken)
        let rows = try await records.identifications(plantID: plantID, limit: size + 1, offset: offset, owner: owner)
        return (Array(rows.prefix(size)), rows.count > size ? "o\(offset + size)" : "")
    }

    /// Stores a care event of an existing plant. Adding the same id again is a no-op.
    public func add(_ event: JournalEvent, owner: String) async throws -> (event: JournalEvent, created: Bool) {
        guard !event.id.isEmpty, event.id.count <= 200 else { throw CollectionError.invalidArgument("event.id", .outOfRange, "id must be 1 to 200 characters") }
        guard event.kind != .unspecified else { throw CollectionError.invalidArgument("event.kind", .required, "kind is required") }
        guard event.note.count <= PlantStore.maxTextLength else { throw CollectionError.invalidArgument("event.note", .tooLong, "note is too long") }
        if event.hasOccurredAt { try PlantStore.validateTimestamp(event.occurredAt, field: "event.occurred_at") }
        var event = event
        if !event.hasOccurredAt { event.occurredAt = Google_Protobuf_Timestamp(date: Date()) }
        guard let added = try await records.addEvent(event, owner: owner) else { throw CollectionError(.notFound, "no plant \(event.plantID)") }
        return added
    }

    /// Newest first, of one plant.
    public func events(plantID: String, pageSize: Int, pageToken: String, owner: String) async throws -> ([JournalEvent], String) {
        let (size, offset) = try Self.page(pageSize, pageToken)
        guard let rows = try await records.events(plantID: plantID, limit: size + 1, offset: offset, owner: owner) else {
            throw CollectionError(.notFound, "no plant \(plantID)")
        }
        return (Array(rows.prefix(size)), rows.count > size ? "o\(offset + size)" : "")
    }

    private static func page(_ size: Int, _ token: String) throws -> (Int, Int) {
        guard size <= 500 else { throw CollectionError.invalidArgument("page_size", .outOfRange, "page_size must be at most 500") }
        guard token.isEmpty || (token.hasPrefix("o") && Int(token.dropFirst()).map { (0...Int(Int32.max)).contains($0) } == true) else {
            throw CollectionError.invalidArgument("page_token", .invalidToken, "page_token was not issued by this service")
        }
        return (size == 0 ? 50 : size, token.isEmpty ? 0 : Int(token.dropFirst())!)
    }
}
