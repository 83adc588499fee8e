import Collection
import Foundation
import GRDB
import Logging
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import SwiftProtobuf
import Testing

/// Inputs that an outside fuzzing run found to kill the collection service, to poison a user's export, or to
/// answer UNKNOWN with SQL in the message: each is now a proper status, and stored values older code accepted no
/// longer stop an export.
@Suite("Collection: hostile input", .cleansUp)
struct CollectionHostileInputTests {
    typealias Methods = Plantguide_Collection_V1_CollectionService
    let folder: URL
    let router: RPCRouter
    let user = [RPCServerContext.userIDKey: "u1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("collection-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        TestResources.track(folder: folder)
        router = try Self.router(folder: folder)
    }

    static func router(folder: URL) throws -> RPCRouter {
        var router = RPCRouter()
        router.register(try CollectionRPCService(configuration: .init(dataDirectory: folder), logger: Logger(label: "test")))
        return router
    }

    /// A router over a collection service on `backend`, and the backend (which closes its pools when it goes).
    static func router(_ backend: TestBackend) async throws -> (RPCRouter, CollectionBackend) {
        let store = try await CollectionBackend(backend)
        var router = RPCRouter()
        router.register(try await store.service())
        return (router, store)
    }

    private func call<Request: SwiftProtobuf.Message, Response>(
        on router: RPCRouter? = nil, _ method: RPCMethod<Request, Response>, _ request: Request
    ) async throws -> RPCRouter.Outcome {
        await (router ?? self.router).invoke(method.path, payload: try request.serializedData(), metadata: user)
    }

    static let extremes: [Google_Protobuf_Timestamp] = [
        .init(seconds: .max, nanos: 0), .init(seconds: .min, nanos: 0), .init(seconds: 0, nanos: -1),
        .init(seconds: 253_402_300_800, nanos: 0),
    ]

    @Test("timestamps outside the range in AddPlant, AddIdentification, AddJournalEvent and ListPlants are INVALID_ARGUMENT",
          arguments: TestBackend.allCases)
    func extremeTimestamps(backend: TestBackend) async throws {
        let (router, store) = try await Self.router(backend)
        defer { withExtendedLifetime(store) {} }
        #expect(try await call(on: router, Methods.addPlant, .with { $0.plant.id = "p1"; $0.plant.scientificName = "Ficus lyrata" }).error == nil)
        for (index, timestamp) in Self.extremes.enumerated() {
            let added = try await call(on: router, Methods.addPlant, .with {
                $0.plant.id = "x\(index)"
                $0.plant.scientificName = "Ficus lyrata"
                $0.plant.addedAt = timestamp
            })
            #expect(added.error?.code == .invalidArgument && added.error?.message.contains("added_at") == true)
            let identified = try await call(on: router, Methods.addPlant, .with {
                $0.plant.id = "y\(index)"
                $0.plant.scientificName = "Ficus lyrata"
                $0.plant.identifiedAt = timestamp
            })
            #expect(identified.error?.code == .invalidArgument && identified.error?.message.contains("identified_at") == true)
            let identification = try await call(on: router, Methods.addIdentification, .with {
                $0.identification.id = "i\(index)"
                $0.identification.identifiedAt = timestamp
            })
            #expect(identification.error?.code == .invalidArgument)
            let event = try await call(on: router, Methods.addJournalEvent, .with {
                $0.event.id = "e\(index)"
                $0.event.plantID = "p1"
                $0.event.kind = .watered
                $0.event.occurredAt = timestamp
            })
            #expect(event.error?.code == .invalidArgument)
            let list = try await call(on: router, Methods.listPlants, .with { $0.addedAfter = timestamp })
            #expect(list.error?.code == .invalidArgument)
        }
        // Nothing was stored, and the export still works.
        #expect(try await call(on: router, Methods.exportCollection, .init()).error == nil)
    }

    @Test("PutPhoto for a missing or another user's plant is NOT_FOUND, never UNKNOWN with SQL", arguments: TestBackend.allCases)
    func photoForMissingPlant(backend: TestBackend) async throws {
        let (router, store) = try await Self.router(backend)
        defer { withExtendedLifetime(store) {} }
        let jpeg = try TestImages.jpeg(TestImages.gradient(width: 64, height: 48))
        for plant in ["-1", "", "nope"] {
            let put = try await call(on: router, Methods.putPhoto, .with { $0.plantID = plant; $0.data = jpeg })
            #expect(put.error?.code == .notFound || put.error?.code == .invalidArgument)
            #expect(put.error?.message.contains("SQL") == false)
        }
    }

    @Test("SQLite: a photo whose file is gone is DATA_LOSS on GetPhoto and is left out of the export, which still answers")
    func missingPhotoFile() async throws {
        #expect(try await call(Methods.addPlant, .with { $0.plant.id = "p1"; $0.plant.scientificName = "Ficus lyrata" }).error == nil)
        let jpeg = try TestImages.jpeg(TestImages.gradient(width: 64, height: 48))
        let put = try await call(Methods.putPhoto, .with { $0.plantID = "p1"; $0.data = jpeg })
        let photo = try Plantguide_Collection_V1_PutPhotoResponse(serializedBytes: try #require(put.payload)).photo
        let photos = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        for case let file as URL in photos where file.lastPathComponent.hasPrefix(photo.sha256) {
            try FileManager.default.removeItem(at: file)
        }
        let get = try await call(Methods.getPhoto, .with { $0.sha256 = photo.sha256 })
        #expect(get.error?.code == .dataLoss && get.error?.message.contains(folder.path) == false)
        let export = try await call(Methods.exportCollection, .init())
        #expect(export.error == nil)
    }

    @Test("SQLite: an export over rows holding the worst times older code stored still answers")
    func storedPoison() async throws {
        #expect(try await call(Methods.addPlant, .with { $0.plant.id = "p1"; $0.plant.scientificName = "Ficus lyrata" }).error == nil)
        #expect(try await call(Methods.addIdentification, .with { $0.identification.id = "i1"; $0.identification.plantID = "p1" }).error == nil)
        #expect(try await call(Methods.addJournalEvent, .with { $0.event.id = "e1"; $0.event.plantID = "p1"; $0.event.kind = .watered }).error == nil)
        let database = try DatabaseQueue(path: folder.appendingPathComponent("collection.sqlite").path)
        try await database.write { db in
            try db.execute(sql: "UPDATE plant SET addedAt = 1e300, updatedAt = -1e300, identifiedAt = 9.3e18")
            try db.execute(sql: "UPDATE identification SET identifiedAt = -9.3e18")
            try db.execute(sql: "UPDATE journalEvent SET occurredAt = 1e300")
        }
        try await database.close()
        let restarted = try Self.router(folder: folder)
        let export = await restarted.invoke(Methods.exportCollection.path, payload: Data(), metadata: user)
        #expect(export.error == nil)
        let list = await restarted.invoke(Methods.listPlants.path, payload: Data(), metadata: user)
        #expect(list.error == nil)
    }
}
