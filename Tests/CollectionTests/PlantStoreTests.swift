@testable import Collection
import Foundation
import PlantGuideProtos
import PlantGuideTestSupport
import SwiftProtobuf
import Testing

@Suite("Plants: add, update, delete, isolation")
struct PlantStoreTests {
    @Test("adding the same id twice does not duplicate; other content under that id is ALREADY_EXISTS", arguments: TestBackend.allCases)
    func idempotentAdd(backend: TestBackend) async throws {
        let fixture = try await CollectionFixture(backend)
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

    @Test("an update changes only the fields in the mask, and updated_at", arguments: TestBackend.allCases)
    func fieldMask(backend: TestBackend) async throws {
        let fixture = try await CollectionFixture(backend)
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

    @Test("a mask that is empty, names a read-only field or an unknown one is INVALID_ARGUMENT", arguments: TestBackend.allCases, [
        [String](), ["added_at"], ["owner_id"], ["colour"],
    ])
    func badMask(backend: TestBackend, paths: [String]) async throws {
        let fixture = try await CollectionFixture(backend)
        try await fixture.seed()
        let error = await #expect(throws: CollectionError.self) {
            _ = try await fixture.plants.update(.with { $0.id = "p1" }, mask: .init(protoPaths: paths), owner: "a")
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test("deleting a plant takes its identifications, journal and photo links, in one transaction", arguments: TestBackend.allCases)
    func cascade(backend: TestBackend) async throws {
        let fixture = try await CollectionFixture(backend)
        try await fixture.seed()
        _ = try await fixture.history.add(.with { $0.id = "i1"; $0.plantID = "p1"; $0.confidence = 0.9 }, owner: "a")
        _ = try await fixture.history.add(.with { $0.id = "j1"; $0.plantID = "p1"; $0.kind = .watered }, owner: "a")
        let own = try TestImages.jpeg(TestImages.gradient(width: 20, height: 10))
        let shared = try TestImages.jpeg(TestImages.gradient(width: 10, height: 20))
        let ownSHA = try await fixture.photos.put(own, kind: .captured, plantID: "p1", owner: "a").photo.sha256
        let sharedSHA = try await fixture.photos.put(shared, kind: .captured, plantID: "p1", owner: "a").photo.sha256
        _ = try await fixture.photos.put(shared, kind: .captured, plantID: "p2", owner: "a")

        let (deleted, photosRemoved) = try await fixture.plants.delete(id: "p1", owner: "a")
        let again = try await fixture.plants.delete(id: "p1", owner: "a")

        #expect(deleted && !again.deleted)
        #expect(photosRemoved == 1, "a photo another plant still shows stays")
        #expect(try await fixture.history.identifications(plantID: "p1", pageSize: 0, pageToken: "", owner: "a").0.isEmpty)
        await #expect(throws: CollectionError.self) { _ = try await fixture.history.events(plantID: "p1", pageSize: 0, pageToken: "", owner: "a") }
        await #expect(throws: CollectionError.self) { _ = try await fixture.photos.get(sha: ownSHA, thumbnailSize: 0, owner: "a") }
        #expect(try await fixture.photos.get(sha: sharedSHA, thumbnailSize: 0, owner: "a").data == shared)
        #expect(try await fixture.plants.plant(id: "p2", owner: "a").photos.map(\.sha256) == [sharedSHA])
        #expect(try await fixture.store.storedPhotos() == 1)
    }

    @Test("user b can neither get, list, search, update, favourite, delete nor annotate user a's plants", arguments: TestBackend.allCases)
    func isolation(backend: TestBackend) async throws {
        let fixture = try await CollectionFixture(backend)
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

    @Test("bad input is INVALID_ARGUMENT", arguments: TestBackend.allCases, [
        CollectionFixture.plant("", "Monstera deliciosa"),
        CollectionFixture.plant("p", "  "),
        CollectionFixture.plant("p", "Monstera deliciosa", notes: String(repeating: "x", count: 10_001)),
        Plantguide_Collection_V1_Plant.with { $0.id = "p"; $0.scientificName = "X y"; $0.identificationConfidence = 1.5 },
    ])
    func badInput(backend: TestBackend, plant: Plantguide_Collection_V1_Plant) async throws {
        let fixture = try await CollectionFixture(backend)
        let error = await #expect(throws: CollectionError.self) { _ = try await fixture.plants.add(plant, owner: "a") }
        #expect(error?.code == .invalidArgument)
    }
}
