@testable import Collection
import Foundation
import GRDB
import PlantGuideProtos
import PlantGuideTestSupport
import SwiftProtobuf
import Testing

@Suite("Identification history and journal")
struct HistoryTests {
    @Test("identifications: idempotent add, newest first, by plant, paged", arguments: TestBackend.allCases)
    func identifications(backend: TestBackend) async throws {
        let fixture = try await CollectionFixture(backend)
        try await fixture.seed()
        for (index, plant) in ["p1", "p2", "", "p1"].enumerated() {
            let record = Plantguide_Collection_V1_IdentificationRecord.with {
                $0.id = "i\(index)"
                $0.plantID = plant
                $0.confidence = 0.5
                $0.identifiedAt = Google_Protobuf_Timestamp(roundingTimeIntervalSince1970: 1_790_000_000 + Double(index) * 10, rule: .toNearestOrAwayFromZero)
                $0.topResults = [.with { $0.scientificName = "Monstera deliciosa"; $0.score = 0.5 }]
                $0.location = .with { $0.latitude = 52.5; $0.longitude = 13.4 }
            }
            #expect(try await fixture.history.add(record, owner: "a").created)
            #expect(try await fixture.history.add(record, owner: "a").created == false)
        }

        let (all, next) = try await fixture.history.identifications(plantID: "", pageSize: 3, pageToken: "", owner: "a")
        let (rest, end) = try await fixture.history.identifications(plantID: "", pageSize: 3, pageToken: next, owner: "a")
        let (ofP1, _) = try await fixture.history.identifications(plantID: "p1", pageSize: 0, pageToken: "", owner: "a")

        #expect(all.map(\.id) == ["i3", "i2", "i1"] && rest.map(\.id) == ["i0"] && end.isEmpty)
        #expect(ofP1.map(\.id) == ["i3", "i0"])
        #expect(all.first?.topResults.first?.scientificName == "Monstera deliciosa" && all.first?.location.latitude == 52.5)
        #expect(try await fixture.history.identifications(plantID: "", pageSize: 0, pageToken: "", owner: "b").0.isEmpty)
    }

    @Test("journal events need an existing plant of the caller's", arguments: TestBackend.allCases)
    func journal(backend: TestBackend) async throws {
        let fixture = try await CollectionFixture(backend)
        try await fixture.seed()
        _ = try await fixture.history.add(.with { $0.id = "e1"; $0.plantID = "p4"; $0.kind = .watered; $0.note = "half a litre" }, owner: "a")
        _ = try await fixture.history.add(.with { $0.id = "e2"; $0.plantID = "p4"; $0.kind = .pruned }, owner: "a")

        let missing = await #expect(throws: CollectionError.self) {
            _ = try await fixture.history.add(.with { $0.id = "e3"; $0.plantID = "nope"; $0.kind = .watered }, owner: "a")
        }
        let (events, _) = try await fixture.history.events(plantID: "p4", pageSize: 10, pageToken: "", owner: "a")

        #expect(missing?.code == .notFound)
        #expect(Set(events.map(\.id)) == ["e1", "e2"] && events.contains { $0.note == "half a litre" })
    }
}

@Suite("Schema migrations")
struct MigrationTests {
    @Test("a SQLite database written by the first schema version opens with every migration applied, its plants searchable")
    func fromFirstVersion() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("collection-v1-\(UUID().uuidString).sqlite").path
        do {
            let old = try DatabaseQueue(path: path)
            try CollectionDatabase.migrator.migrate(old, upTo: "v1: records")
            try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO plant (ownerID, id, scientificName, commonNames, family, displayName, addedAt, updatedAt)
                    VALUES ('a', 'old1', 'Monstera deliciosa', '["Swiss cheese plant"]', 'Araceae', 'Swiss cheese plant', 1, 1)
                    """)
            }
            #expect(try await old.read { db in try db.tableExists("plantSearch") } == false)
        }

        let current = try CollectionDatabase.open(path: path)
        let store = PlantStore(records: SQLiteCollection(writer: current, photoFolder: URL(fileURLWithPath: path + "-photos")))

        #expect(try await current.read { db in try CollectionDatabase.migrator.hasCompletedMigrations(db) })
        #expect(try await store.search("swiss", limit: 5, owner: "a").map(\.plant.id) == ["old1"])
        #expect(try await store.plant(id: "old1", owner: "a").commonNames == ["Swiss cheese plant"])
    }
}
