@testable import Collection
import Foundation
import PlantGuideProtos
import SwiftProtobuf
import Testing

@Suite("Plants: add, update, delete, isolation")
struct PlantStoreTests {
    let fixture: CollectionFixture

    init() throws { fixture = try CollectionFixture() }

    @Test("adding the same id twice does not duplicate; other content under that id is ALREADY_EXISTS")
    func idempotentAdd() async throws {
        let plant = CollectionFixture.plant("p1", "Monstera deliciosa", common: ["Swiss cheese plant"], identified: 1_789_000_000.123456789)

        let first = try await fixture.plants.add(plant, owner: "a")
        fixture.advance(seconds: 5)
        let retry = try await fixture.plants.add(plant, owner: "a")
        var changed = plant
        changed.notes = "different"
        let conflict = await #expect(throws: CollectionError.self) { _ = try await fixture.plants.add(changed, owner: "a") }

        #expect(first.created && !retry.created)
        #expect(retry.plant == first.plant)
        #expect(conflict?.code == .alreadyExists)
        #expect(try await fixture.plants.list(.init(), owner: "a").totalMatching == 1)
    }

    @Test("an update changes only the fields in the mask, and updated_at")
    func fieldMask() async throws {
        try await fixture.seed()
        let before = try await fixture.plants.plant(id: "p2", owner: "a")
        fixture.advance(seconds: 100)
        var update = CollectionFixture.Plant()
        update.id = "p2"
        update.notes = "repotted in spring"
        update.location = "Hall"
        update.scientificName = "not in the mask"

        let after = try await fixture.plants.update(update, mask: .init(protoPaths: ["notes", "location"]), owner: "a")

        #expect(after.notes == "repotted in spring" && after.location == "Hall")
        #expect(after.scientificName == before.scientificName && after.commonNames == before.commonNames)
        #expect(after.addedAt == before.addedAt)
        #expect(after.updatedAt.seconds == Int64(fixture.clock.now.timeIntervalSince1970))
        #expect(try await fixture.plants.search("hall", limit: 10, owner: "a").map(\.plant.id) == ["p2"])
    }

    @Test("a mask that is empty, names a read-only field or an unknown one is INVALID_ARGUMENT", arguments: [
        [String](), ["added_at"], ["owner_id"], ["colour"],
    ])
    func badMask(paths: [String]) async throws {
        try await fixture.seed()
        let error = await #expect(throws: CollectionError.self) {
            _ = try await fixture.plants.update(.with { $0.id = "p1" }, mask: .init(protoPaths: paths), owner: "a")
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test("deleting a plant takes its identifications, journal and photo links, in one transaction")
    func cascade() async throws {
        try await fixture.seed()
        _ = try await fixture.history.add(.with { $0.id = "i1"; $0.plantID = "p1"; $0.confidence = 0.9 }, owner: "a")
        _ = try await fixture.history.add(.with { $0.id = "j1"; $0.plantID = "p1"; $0.kind = .watered }, owner: "a")
        try await fixture.database.write { db in
            for sha in ["s-own", "s-shared"] {
                try db.execute(sql: "INSERT INTO photo VALUES (?, 'image/jpeg', 10, 1, 1, 0)", arguments: [sha])
            }
            try db.execute(sql: "INSERT INTO plantPhoto VALUES ('a', 'p1', 's-own', 1, 0), ('a', 'p1', 's-shared', 1, 0), ('a', 'p2', 's-shared', 1, 0)")
        }

        let (deleted, orphaned) = try await fixture.plants.delete(id: "p1", owner: "a")
        let again = try await fixture.plants.delete(id: "p1", owner: "a")

        #expect(deleted && !again.deleted)
        #expect(orphaned == ["s-own"], "a photo another plant still shows stays")
        let left = try await fixture.database.read { db in
            try [Int.fetchOne(db, sql: "SELECT COUNT(*) FROM identification WHERE plantID = 'p1'")!,
                 Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journalEvent WHERE plantID = 'p1'")!,
                 Int.fetchOne(db, sql: "SELECT COUNT(*) FROM plantPhoto WHERE plantID = 'p1'")!,
                 Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo")!]
        }
        #expect(left == [0, 0, 0, 1])
    }

    @Test("user b can neither get, list, search, update, favourite, delete nor annotate user a's plants")
    func isolation() async throws {
        try await fixture.seed()

        await #expect(throws: CollectionError.self) { _ = try await fixture.plants.plant(id: "p1", owner: "b") }
        #expect(try await fixture.plants.list(.init(), owner: "b").plants.map(\.id).sorted() == ["q1", "q2"])
        #expect(try await fixture.plants.search("monstera", limit: 10, owner: "b").map(\.plant.id) == ["q1"])
        await #expect(throws: CollectionError.self) {
            _ = try await fixture.plants.update(.with { $0.id = "p1"; $0.notes = "x" }, mask: .init(protoPaths: ["notes"]), owner: "b")
        }
        await #expect(throws: CollectionError.self) { _ = try await fixture.plants.setFavorite(id: "p1", favorite: false, owner: "b") }
        #expect(try await fixture.plants.delete(id: "p1", owner: "b").deleted == false)
        await #expect(throws: CollectionError.self) {
            _ = try await fixture.history.add(.with { $0.id = "j"; $0.plantID = "p1"; $0.kind = .watered }, owner: "b")
        }
        #expect(try await fixture.plants.suggestions(prefix: "mon", limit: 10, owner: "b") == ["Monstera adansonii"])
        _ = try await fixture.plants.deleteAll(owner: "b")
        #expect(try await fixture.plants.plant(id: "p1", owner: "a").notes == "")
        #expect(try await fixture.plants.list(.init(), owner: "a").totalMatching == 8)
    }

    @Test("bad input is INVALID_ARGUMENT", arguments: [
        CollectionFixture.plant("", "Monstera deliciosa"),
        CollectionFixture.plant("p", "  "),
        CollectionFixture.plant("p", "Monstera deliciosa", notes: String(repeating: "x", count: 10_001)),
        Plantguide_Collection_V1_Plant.with { $0.id = "p"; $0.scientificName = "X y"; $0.identificationConfidence = 1.5 },
    ])
    func badInput(plant: Plantguide_Collection_V1_Plant) async throws {
        let error = await #expect(throws: CollectionError.self) { _ = try await fixture.plants.add(plant, owner: "a") }
        #expect(error?.code == .invalidArgument)
    }
}
