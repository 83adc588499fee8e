@testable import Collection
import Foundation
import PlantGuideProtos
import PlantGuideTestSupport
import SwiftProtobuf
import Testing

@Suite("Export and import", .cpuHeavy)
struct ArchiveTests {
    /// The fixture's photo store and archiver.
    private func archiver(_ fixture: CollectionFixture) -> (PhotoStore, CollectionArchiver) {
        (fixture.photos, fixture.archiver)
    }

    @Test("a collection moves to another server with its ids, history, journal and photos; importing again changes nothing", arguments: TestBackend.allCases)
    func roundTrip(backend: TestBackend) async throws {
        let source = try await CollectionFixture(backend)
        try await source.seed()
        let (sourcePhotos, sourceArchiver) = archiver(source)
        let jpeg = try TestImages.jpeg(TestImages.halves(width: 200, height: 100))
        let sha = try await sourcePhotos.put(jpeg, kind: .captured, plantID: "p1", owner: "a").photo.sha256
        _ = try await source.history.add(.with { $0.id = "i1"; $0.plantID = "p1"; $0.confidence = 0.8 }, owner: "a")
        _ = try await source.history.add(.with { $0.id = "e1"; $0.plantID = "p4"; $0.kind = .watered; $0.note = "rain water" }, owner: "a")

        let archive = try await sourceArchiver.export(owner: "a")
        let target = try await CollectionFixture(backend)
        let (targetPhotos, targetArchiver) = archiver(target)
        let first = try await targetArchiver.import(archive, owner: "z")
        let second = try await targetArchiver.import(archive, owner: "z")

        #expect(first == (8, 0, 1) && second == (0, 8, 0))
        let moved = try await target.plants.plant(id: "p1", owner: "z")
        let original = try await source.plants.plant(id: "p1", owner: "a")
        #expect(moved.customName == "Monty" && moved.addedAt == original.addedAt && moved.photos.map(\.sha256) == [sha])
        #expect(try await targetPhotos.get(sha: sha, thumbnailSize: 0, owner: "z").data == jpeg)
        #expect(try await targetPhotos.get(sha: sha, thumbnailSize: 256, owner: "z").mediaType == "image/jpeg")
        #expect(try await target.history.identifications(plantID: "", pageSize: 0, pageToken: "", owner: "z").0.map(\.id) == ["i1"])
        #expect(try await target.history.events(plantID: "p4", pageSize: 0, pageToken: "", owner: "z").0.first?.note == "rain water")
        #expect(try await target.plants.search("swiss", limit: 5, owner: "z").map(\.plant.id) == ["p1"])
    }

    @Test("a damaged archive is refused and nothing is written",
          arguments: TestBackend.allCases, ["truncated", "bad manifest", "unknown plant", "bad photo hash"])
    func validation(backend: TestBackend, damage: String) async throws {
        let source = try await CollectionFixture(backend)
        try await source.seed()
        let (sourcePhotos, sourceArchiver) = archiver(source)
        _ = try await sourcePhotos.put(try TestImages.jpeg(TestImages.halves(width: 64, height: 64)), kind: .captured, plantID: "p1", owner: "a")
        var archive = try await sourceArchiver.export(owner: "a")
        var entries = try TarArchive.read(archive)
        switch damage {
        case "truncated":
            archive = archive.prefix(archive.count / 2)
        case "bad manifest":
            entries[0].data = Data("{\"version\": 1, \"plants\": [{\"id\": 7}]}".utf8)
            archive = TarArchive.write(entries, modified: Date())
        case "unknown plant":
            var manifest = try Plantguide_Collection_V1_CollectionArchive(jsonUTF8Data: entries[0].data)
            manifest.journal = [.with { $0.id = "e9"; $0.plantID = "nope"; $0.kind = .watered }]
            entries[0].data = try manifest.jsonUTF8Data()
            archive = TarArchive.write(entries, modified: Date())
        default:
            entries[1].data = try TestImages.jpeg(TestImages.halves(width: 8, height: 8))
            archive = TarArchive.write(entries, modified: Date())
        }
        let target = try await CollectionFixture(backend)
        let (_, targetArchiver) = archiver(target)

        let error = await #expect(throws: CollectionError.self) { _ = try await targetArchiver.import(archive, owner: "z") }

        #expect(error?.code == .invalidArgument && error?.message.hasPrefix("archive") == true)
        #expect(try await target.plants.list(.init(), owner: "z").totalMatching == 0)
    }
}
