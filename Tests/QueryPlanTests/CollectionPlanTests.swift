@testable import Collection
import Foundation
import GRDB
import Logging
import PlantGuideStorage
import PlantGuideProtos
import PlantGuideTestSupport
import SwiftProtobuf
import Testing

@Suite("Query plans: collection")
struct CollectionPlanTests {
    typealias Plant = Plantguide_Collection_V1_Plant

    static func plant(_ id: String, _ scientific: String, family: String) -> Plant {
        .with {
            $0.id = id
            $0.scientificName = scientific
            $0.commonNames = ["Swiss cheese plant"]
            $0.family = family
            $0.genus = String(scientific.prefix { $0 != " " })
            $0.location = "Kitchen"
            $0.notes = "by the window"
            $0.identificationSource = .onDevice
            $0.identifiedAt = Google_Protobuf_Timestamp(seconds: 1_789_000_000)
        }
    }

    /// The collection's stores over `records`.
    struct Stores {
        let plants: PlantStore
        let history: HistoryStore
        let photos: PhotoStore
        let archiver: CollectionArchiver

        init(_ records: any CollectionRecords) {
            plants = PlantStore(records: records)
            history = HistoryStore(records: records)
            photos = PhotoStore(records: records)
            archiver = CollectionArchiver(records: records, photos: photos)
        }
    }

    /// 40 other users with ten plants, five photos of their own, an identification and a journal event each.
    static func seedOthers(_ stores: Stores) async throws {
        for user in 0..<40 {
            for index in 0..<10 {
                _ = try await stores.plants.add(Self.plant("p\(index)", index % 2 == 0 ? "Monstera deliciosa" : "Ficus lyrata",
                                                           family: index % 2 == 0 ? "Araceae" : "Moraceae"), owner: "u\(user)")
            }
            for index in 0..<5 {  // photos of their own: the photo table grows with users, as it does in use
                let own = try TestImages.jpeg(TestImages.gradient(width: 32 + user, height: 16 + index))
                _ = try await stores.photos.put(own, kind: .captured, plantID: "p\(index)", owner: "u\(user)")
            }
            _ = try await stores.history.add(.with { $0.id = "i0"; $0.plantID = "p0"; $0.confidence = 0.9; $0.source = .onDevice }, owner: "u\(user)")
            _ = try await stores.history.add(.with { $0.id = "j0"; $0.plantID = "p0"; $0.kind = .watered }, owner: "u\(user)")
        }
    }

    /// Every store method, for user "a" (and an import for "b").
    static func workload(_ stores: Stores) async throws {
        let (plants, history, photos, archiver) = (stores.plants, stores.history, stores.photos, stores.archiver)
        let jpeg = try TestImages.jpeg(TestImages.gradient(width: 64, height: 48))
        for index in 0..<10 {
            _ = try await plants.add(Self.plant("p\(index)", "Monstera deliciosa", family: "Araceae"), owner: "a")
        }
        _ = try await plants.add(Self.plant("p0", "Monstera deliciosa", family: "Araceae"), owner: "a")  // again: unchanged
        _ = try await plants.update(.with { $0.id = "p1"; $0.notes = "repotted" }, mask: .init(protoPaths: ["notes"]), owner: "a")
        _ = try await plants.setFavorite(id: "p2", favorite: true, owner: "a")
        _ = try await plants.plant(id: "p2", owner: "a")
        for sort in [Plantguide_Collection_V1_PlantSort.unspecified, .dateAdded, .dateIdentified, .name, .family] {
            let first = try await plants.list(.with { $0.sort = sort; $0.pageSize = 3 }, owner: "a")
            _ = try await plants.list(.with { $0.sort = sort; $0.pageSize = 3; $0.descending = true }, owner: "a")
            _ = try await plants.list(.with { $0.sort = sort; $0.pageSize = 3; $0.pageToken = first.nextPageToken },
                                      owner: "a")
        }
        _ = try await plants.list(.with {
            $0.query = "monst"
            $0.families = ["araceae"]
            $0.favoritesOnly = true
            $0.sources = [.onDevice]
            $0.addedAfter = Google_Protobuf_Timestamp(seconds: 1)
            $0.addedBefore = Google_Protobuf_Timestamp(seconds: 4_000_000_000)
            $0.location = "kitchen"
            $0.scientificNames = ["monstera deliciosa"]
        }, owner: "a")
        _ = try await plants.search("swiss chee", limit: 10, owner: "a")
        _ = try await plants.suggestions(prefix: "mon", limit: 5, owner: "a")
        _ = try await plants.statistics(owner: "a", timeZone: TimeZone(identifier: "UTC")!)

        let photo = try await photos.put(jpeg, kind: .captured, plantID: "p1", owner: "a").photo
        _ = try await photos.put(jpeg, kind: .captured, plantID: "p2", owner: "a")
        _ = try await photos.get(sha: photo.sha256, thumbnailSize: 0, owner: "a")
        _ = try await photos.get(sha: photo.sha256, thumbnailSize: 256, owner: "a")
        _ = try await photos.delete(sha: photo.sha256, plantID: "p2", owner: "a")

        _ = try await history.add(.with { $0.id = "i1"; $0.plantID = "p1"; $0.confidence = 0.8; $0.source = .plantnet }, owner: "a")
        _ = try await history.add(.with { $0.id = "i2"; $0.confidence = 0.4; $0.source = .onDevice }, owner: "a")
        _ = try await history.identifications(plantID: "", pageSize: 1, pageToken: "", owner: "a")
        let page = try await history.identifications(plantID: "p1", pageSize: 1, pageToken: "", owner: "a")
        _ = try await history.identifications(plantID: "p1", pageSize: 1, pageToken: page.1, owner: "a")
        _ = try await history.add(.with { $0.id = "j1"; $0.plantID = "p1"; $0.kind = .watered }, owner: "a")
        _ = try await history.add(.with { $0.id = "j2"; $0.plantID = "p1"; $0.kind = .pruned }, owner: "a")
        let events = try await history.events(plantID: "p1", pageSize: 1, pageToken: "", owner: "a")
        _ = try await history.events(plantID: "p1", pageSize: 1, pageToken: events.1, owner: "a")

        let archive = try await archiver.export(owner: "a")
        _ = try await archiver.import(archive, owner: "b")
        _ = try await archiver.import(archive, owner: "b")
        _ = try await plants.delete(id: "p1", owner: "a")
        _ = try await plants.deleteAll(owner: "a")
    }

    @Test("SQLite: every statement of plants, search, photos, history, journal and archives searches by its owner and the most selective index")
    func everyStatement() async throws {
        let audit = QueryPlanAudit()
        let database = try audit.openDatabase(CollectionDatabase.migrator, prepare: CollectionDatabase.prepare)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plan-photos-\(UUID().uuidString)")
        let records = SQLiteCollection(writer: database, photoFolder: folder)
        try await Self.seedOthers(Stores(records))

        try await audit.recording {
            try await Self.workload(Stores(records))
            _ = try records.sweepUnreferencedFiles()
        }

        #expect(audit.statements.count > 30, "the workload ran \(audit.statements.count) distinct statements")
        let findings = try audit.findings(in: database)
        #expect(findings.isEmpty, "\(findings.map(\.description).joined(separator: "\n"))")
    }
}

@Suite("Query plans: collection on PostgreSQL")
struct CollectionPostgresPlanTests {
    @Test("PostgreSQL: no statement of plants, search, photos, history, journal and archives reads a table sequentially")
    func everyStatement() async throws {
        let audit = PostgresPlanAudit()
        let storage = try await TestPostgres.open(try await TestPostgres.settings(), migrations: PostgresCollection.migrations, observer: audit.observer)
        let records = PostgresCollection(storage)
        try await CollectionPlanTests.seedOthers(.init(records))

        try await audit.recording { try await CollectionPlanTests.workload(.init(records)) }

        #expect(audit.statements.count > 30, "the workload ran \(audit.statements.count) distinct statements")
        let findings = try await audit.findings(in: storage)
        await storage.close()
        #expect(findings.isEmpty, "\(findings.map(\.description).joined(separator: "\n"))")
    }
}
