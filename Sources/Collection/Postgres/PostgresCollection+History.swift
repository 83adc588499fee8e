import Foundation
import PlantGuideProtos
import PlantGuideStorage
import PostgresNIO

/// Identification history and the care journal in PostgreSQL.
extension PostgresCollection {
    private static let identificationColumns =
        "top_results, id, plant_id, identified_at, source, confidence, latitude, longitude, photo_sha256"

    public func addIdentification(_ record: Identification, owner: String) async throws -> (record: Identification, created: Bool)? {
        try await database.write { session in
            if !record.plantID.isEmpty, try await Self.plantMissing(session, owner: owner, id: record.plantID) { return nil }
            let created = try await Self.insert(session, record, owner: owner)
            let stored = try await Self.identifications(session.query("""
                SELECT \(unescaped: Self.identificationColumns) FROM identification WHERE owner_id = \(owner) AND id = \(record.id)
                """))
            return (stored[0], created)
        }
    }

    public func identifications(plantID: String, limit: Int, offset: Int, owner: String) async throws -> [Identification] {
        try await database.read { session in
            try await Self.identifications(plantID.isEmpty
                ? session.query("""
                    SELECT \(unescaped: Self.identificationColumns) FROM identification WHERE owner_id = \(owner)
                    ORDER BY identified_at DESC, id LIMIT \(limit) OFFSET \(offset)
                    """)
                : session.query("""
                    SELECT \(unescaped: Self.identificationColumns) FROM identification WHERE owner_id = \(owner) AND plant_id = \(plantID)
                    ORDER BY identified_at DESC, id LIMIT \(limit) OFFSET \(offset)
                    """))
        }
    }

    public func addEvent(_ event: JournalEvent, owner: String) async throws -> (event: JournalEvent, created: Bool)? {
        try await database.write { session in
            guard try await !Self.plantMissing(session, owner: owner, id: event.plantID) else { return nil }
            let created = try await Self.insert(session, event, owner: owner)
            let stored = try await Self.events(session.query("""
                SELECT id, plant_id, kind, occurred_at, note FROM journal_event WHERE owner_id = \(owner) AND id = \(event.id)
                """))
            return (stored[0], created)
        }
    }

    public func events(plantID: String, limit: Int, offset: Int, owner: String) async throws -> [JournalEvent]? {
        try await database.read { session in
            guard try await !Self.plantMissing(session, owner: owner, id: plantID) else { return nil }
            return try await Self.events(session.query("""
                SELECT id, plant_id, kind, occurred_at, note FROM journal_event WHERE owner_id = \(owner) AND plant_id = \(plantID)
                ORDER BY occurred_at DESC, id LIMIT \(limit) OFFSET \(offset)
                """))
        }
    }

    /// Inserts an identification unless its id exists; returns whether it did.
    @discardableResult
    static func insert(_ session: PostgresSession, _ record: Identification, owner: String) async throws -> Bool {
        let latitude = record.hasLocation ? record.location.latitude : nil
        let longitude = record.hasLocation ? record.location.longitude : nil
        return try await session.count("""
            INSERT INTO identification (owner_id, id, plant_id, identified_at, source, confidence, top_results, latitude, longitude, photo_sha256)
            VALUES (\(owner), \(record.id), \(record.plantID.isEmpty ? nil : record.plantID), \(PlantRow.seconds(record.identifiedAt)),
                    \(record.source.rawValue), \(record.confidence), \(try HistoryRows.topResults(of: record)), \(latitude), \(longitude),
                    \(record.photoSha256))
            ON CONFLICT (owner_id, id) DO NOTHING
            RETURNING 1
            """) > 0
    }

    /// Inserts a journal event unless its id exists; returns whether it did.
    @discardableResult
    static func insert(_ session: PostgresSession, _ event: JournalEvent, owner: String) async throws -> Bool {
        try await session.count("""
            INSERT INTO journal_event (owner_id, id, plant_id, kind, occurred_at, note)
            VALUES (\(owner), \(event.id), \(event.plantID), \(event.kind.rawValue), \(PlantRow.seconds(event.occurredAt)), \(event.note))
            ON CONFLICT (owner_id, id) DO NOTHING
            RETURNING 1
            """) > 0
    }

    static func allIdentifications(_ session: PostgresSession, owner: String) async throws -> [Identification] {
        try await identifications(session.query("""
            SELECT \(unescaped: identificationColumns) FROM identification WHERE owner_id = \(owner) ORDER BY identified_at, id
            """))
    }

    static func allEvents(_ session: PostgresSession, owner: String) async throws -> [JournalEvent] {
        try await events(session.query(
            "SELECT id, plant_id, kind, occurred_at, note FROM journal_event WHERE owner_id = \(owner) ORDER BY occurred_at, id"))
    }

    static func plantMissing(_ session: PostgresSession, owner: String, id: String) async throws -> Bool {
        try await session.count("SELECT 1 FROM plant WHERE owner_id = \(owner) AND id = \(id)") == 0
    }

    private static func identifications(_ rows: PostgresRowSequence) async throws -> [Identification] {
        var records: [Identification] = []
        let types = (Data, String, String?, Double, Int, Double, Double?, Double?, String).self
        for try await (results, id, plantID, identified, source, confidence, latitude, longitude, photo) in rows.decode(types) {
            records.append(try HistoryRows.identification(
                topResults: results, id: id, plantID: plantID ?? "", identifiedAt: identified, source: source, confidence: confidence,
                location: latitude.flatMap { latitude in longitude.map { (latitude, $0) } }, photoSHA256: photo))
        }
        return records
    }

    private static func events(_ rows: PostgresRowSequence) async throws -> [JournalEvent] {
        var events: [JournalEvent] = []
        for try await (id, plantID, kind, occurred, note) in rows.decode((String, String, Int, Double, String).self) {
            events.append(HistoryRows.event(id: id, plantID: plantID, kind: kind, occurredAt: occurred, note: note))
        }
        return events
    }
}
