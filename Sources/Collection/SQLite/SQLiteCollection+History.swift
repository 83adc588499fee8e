import Foundation
import GRDB
import PlantGuideProtos
import SwiftProtobuf

/// Identification history and the care journal in SQLite.
extension SQLiteCollection {
    public func addIdentification(_ record: Identification, owner: String) async throws -> (record: Identification, created: Bool)? {
        try await writer.write { db in
            if !record.plantID.isEmpty, try Self.plantMissing(db, owner: owner, id: record.plantID) { return nil }
            try Self.insert(db, record, owner: owner)
            let created = db.changesCount > 0
            let stored = try Row.fetchOne(db, sql: "SELECT * FROM identification WHERE ownerID = ? AND id = ?", arguments: [owner, record.id])!
            return (try Self.identification(stored), created)
        }
    }

    public func identifications(plantID: String, limit: Int, offset: Int, owner: String) async throws -> [Identification] {
        try await writer.read { db in
            // Two statements, so that one plant's history reads that plant's rows (identificationByPlant).
            let rows = plantID.isEmpty
                ? try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT * FROM identification WHERE ownerID = ? ORDER BY identifiedAt DESC, id LIMIT ? OFFSET ?
                    """), arguments: [owner, limit, offset])
                : try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT * FROM identification WHERE ownerID = ? AND plantID = ? ORDER BY identifiedAt DESC, id LIMIT ? OFFSET ?
                    """), arguments: [owner, plantID, limit, offset])
            return try rows.map(Self.identification)
        }
    }

    public func addEvent(_ event: JournalEvent, owner: String) async throws -> (event: JournalEvent, created: Bool)? {
        try await writer.write { db in
            guard try !Self.plantMissing(db, owner: owner, id: event.plantID) else { return nil }
            try Self.insert(db, event, owner: owner)
            let created = db.changesCount > 0
            let stored = try Row.fetchOne(db, sql: "SELECT * FROM journalEvent WHERE ownerID = ? AND id = ?", arguments: [owner, event.id])!
            return (Self.event(stored), created)
        }
    }

    public func events(plantID: String, limit: Int, offset: Int, owner: String) async throws -> [JournalEvent]? {
        try await writer.read { db in
            guard try !Self.plantMissing(db, owner: owner, id: plantID) else { return nil }
            return try Row.fetchAll(db, sql: """
                SELECT * FROM journalEvent WHERE ownerID = ? AND plantID = ? ORDER BY occurredAt DESC, id LIMIT ? OFFSET ?
                """, arguments: [owner, plantID, limit, offset]).map(Self.event)
        }
    }

    /// Inserts an identification unless its id exists (import; references checked by the caller).
    static func insert(_ db: Database, _ record: Identification, owner: String) throws {
        try db.execute(sql: """
            INSERT OR IGNORE INTO identification
                (ownerID, id, plantID, identifiedAt, source, confidence, topResults, latitude, longitude, photoSHA256)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [owner, record.id, record.plantID.isEmpty ? nil : record.plantID, PlantRow.seconds(record.identifiedAt),
                             record.source.rawValue, record.confidence, try HistoryRows.topResults(of: record),
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

    static func plantMissing(_ db: Database, owner: String, id: String) throws -> Bool {
        try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plant WHERE ownerID = ? AND id = ?)", arguments: [owner, id]) ?? false)
    }

    private static func identification(_ row: Row) throws -> Identification {
        let location: (Double, Double)? = (row["latitude"] as Double?).flatMap { latitude in (row["longitude"] as Double?).map { (latitude, $0) } }
        return try HistoryRows.identification(
            topResults: row["topResults"], id: row["id"], plantID: row["plantID"] ?? "", identifiedAt: row["identifiedAt"],
            source: row["source"], confidence: row["confidence"], location: location, photoSHA256: row["photoSHA256"])
    }

    private static func event(_ row: Row) -> JournalEvent {
        HistoryRows.event(id: row["id"], plantID: row["plantID"], kind: row["kind"], occurredAt: row["occurredAt"], note: row["note"])
    }
}
