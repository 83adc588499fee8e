import Foundation
import GRDB
import PlantGuideProtos
import SwiftProtobuf

/// Identification history and the care journal, scoped by owner. Adds are idempotent on the client's ids.
public struct HistoryStore: Sendable {
    public typealias Identification = Plantguide_Collection_V1_IdentificationRecord
    public typealias JournalEvent = Plantguide_Collection_V1_JournalEvent

    let writer: any DatabaseWriter

    public init(writer: any DatabaseWriter) {
        self.writer = writer
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
        return try await writer.write { [record] db in
            if !record.plantID.isEmpty, try Self.plantMissing(db, owner: owner, id: record.plantID) {
                throw CollectionError(.notFound, "no plant \(record.plantID)")
            }
            try Self.insert(db, record, owner: owner)
            let created = db.changesCount > 0
            let stored = try Row.fetchOne(db, sql: "SELECT * FROM identification WHERE ownerID = ? AND id = ?", arguments: [owner, record.id])!
            return (try Self.identification(stored), created)
        }
    }

    /// Newest first, optionally of one plant; pages of `pageSize` (≤ 500) with an offset token.
    public func identifications(plantID: String, pageSize: Int, pageToken: String, owner: String) async throws -> ([Identification], String) {
        let (size, offset) = try Self.page(pageSize, pageToken)
        return try await writer.read { db in
            // Two statements, so that one plant's history reads that plant's rows (identificationByPlant).
            let rows = plantID.isEmpty
                ? try Row.fetchAll(db, sql: """
                    SELECT * FROM identification WHERE ownerID = ? ORDER BY identifiedAt DESC, id LIMIT ? OFFSET ?
                    """, arguments: [owner, size + 1, offset])
                : try Row.fetchAll(db, sql: """
                    SELECT * FROM identification WHERE ownerID = ? AND plantID = ? ORDER BY identifiedAt DESC, id LIMIT ? OFFSET ?
                    """, arguments: [owner, plantID, size + 1, offset])
            return (try rows.prefix(size).map(Self.identification), rows.count > size ? "o\(offset + size)" : "")
        }
    }

    /// Stores a care event of an existing plant. Adding the same id again is a no-op.
    public func add(_ event: JournalEvent, owner: String) async throws -> (event: JournalEvent, created: Bool) {
        guard !event.id.isEmpty, event.id.count <= 200 else { throw CollectionError.invalidArgument("event.id", .outOfRange, "id must be 1 to 200 characters") }
        guard event.kind != .unspecified else { throw CollectionError.invalidArgument("event.kind", .required, "kind is required") }
        guard event.note.count <= PlantStore.maxTextLength else { throw CollectionError.invalidArgument("event.note", .tooLong, "note is too long") }
        if event.hasOccurredAt { try PlantStore.validateTimestamp(event.occurredAt, field: "event.occurred_at") }
        var event = event
        if !event.hasOccurredAt { event.occurredAt = Google_Protobuf_Timestamp(date: Date()) }
        return try await writer.write { [event] db in
            guard try !Self.plantMissing(db, owner: owner, id: event.plantID) else {
                throw CollectionError(.notFound, "no plant \(event.plantID)")
            }
            try Self.insert(db, event, owner: owner)
            let created = db.changesCount > 0
            let stored = try Row.fetchOne(db, sql: "SELECT * FROM journalEvent WHERE ownerID = ? AND id = ?", arguments: [owner, event.id])!
            return (Self.event(stored), created)
        }
    }

    /// Newest first, of one plant.
    public func events(plantID: String, pageSize: Int, pageToken: String, owner: String) async throws -> ([JournalEvent], String) {
        let (size, offset) = try Self.page(pageSize, pageToken)
        return try await writer.read { db in
            guard try !Self.plantMissing(db, owner: owner, id: plantID) else { throw CollectionError(.notFound, "no plant \(plantID)") }
            let rows = try Row.fetchAll(db, sql: """
                SELECT * FROM journalEvent WHERE ownerID = ? AND plantID = ? ORDER BY occurredAt DESC, id LIMIT ? OFFSET ?
                """, arguments: [owner, plantID, size + 1, offset])
            return (rows.prefix(size).map(Self.event), rows.count > size ? "o\(offset + size)" : "")
        }
    }

    /// Inserts an identification unless its id exists (import; references checked by the caller).
    static func insert(_ db: Database, _ record: Identification, owner: String) throws {
        let results = try Identification.with { $0.topResults = record.topResults }.serializedData()
        try db.execute(sql: """
            INSERT OR IGNORE INTO identification
                (ownerID, id, plantID, identifiedAt, source, confidence, topResults, latitude, longitude, photoSHA256)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [owner, record.id, record.plantID.isEmpty ? nil : record.plantID, PlantRow.seconds(record.identifiedAt),
                             record.source.rawValue, record.confidence, results,
                             record.hasLocation ? record.location.latitude : nil, record.hasLocation ? record.location.longitude : nil,
                             record.photoSha256])
    }

    /// Inserts a journal event unless its id exists (import).
    static func insert(_ db: Database, _ event: JournalEvent, owner: String) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO journalEvent (ownerID, id, plantID, kind, occurredAt, note) VALUES (?, ?, ?, ?, ?, ?)",
                       arguments: [owner, event.id, event.plantID, event.kind.rawValue, PlantRow.seconds(event.occurredAt), event.note])
    }

    static func allIdentifications(_ db: Database, owner: String) throws -> [Identification] {
        try Row.fetchAll(db, sql: "SELECT * FROM identification WHERE ownerID = ? ORDER BY identifiedAt, id", arguments: [owner]).map(identification)
    }

    static func allEvents(_ db: Database, owner: String) throws -> [JournalEvent] {
        try Row.fetchAll(db, sql: "SELECT * FROM journalEvent WHERE ownerID = ? ORDER BY occurredAt, id", arguments: [owner]).map(event)
    }

    private static func plantMissing(_ db: Database, owner: String, id: String) throws -> Bool {
        try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plant WHERE ownerID = ? AND id = ?)", arguments: [owner, id]) ?? false)
    }

    private static func page(_ size: Int, _ token: String) throws -> (Int, Int) {
        guard size <= 500 else { throw CollectionError.invalidArgument("page_size", .outOfRange, "page_size must be at most 500") }
        guard token.isEmpty || (token.hasPrefix("o") && Int(token.dropFirst()).map { $0 >= 0 } == true) else {
            throw CollectionError.invalidArgument("page_token", .invalidToken, "page_token was not issued by this service")
        }
        return (size == 0 ? 50 : size, token.isEmpty ? 0 : Int(token.dropFirst())!)
    }

    private static func identification(_ row: Row) throws -> Identification {
        var record = try Identification(serializedBytes: row["topResults"] as Data)
        record.id = row["id"]
        record.plantID = row["plantID"] ?? ""
        record.identifiedAt = PlantRow.timestamp(row["identifiedAt"])
        record.source = .init(rawValue: row["source"]) ?? .unspecified
        record.confidence = row["confidence"]
        if let latitude: Double = row["latitude"], let longitude: Double = row["longitude"] {
            record.location = .with {
                $0.latitude = latitude
                $0.longitude = longitude
            }
        }
        record.photoSha256 = row["photoSHA256"]
        return record
    }

    private static func event(_ row: Row) -> JournalEvent {
        var event = JournalEvent()
        event.id = row["id"]
        event.plantID = row["plantID"]
        event.kind = .init(rawValue: row["kind"]) ?? .unspecified
        event.occurredAt = PlantRow.timestamp(row["occurredAt"])
        event.note = row["note"]
        return event
    }
}
