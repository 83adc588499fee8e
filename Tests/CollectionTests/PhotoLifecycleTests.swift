@testable import Collection
import Foundation
import Logging
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import SwiftProtobuf
import Testing

/// Photos are shared by content across users: deleting one user's plant must never take a photo another user
/// was just acknowledged for, the last reference must take the files, and files no row references (left by a
/// crash between writing files and committing) are swept at start-up.
@Suite("Photos: references and stored bytes across users and crashes", .cpuHeavy, .cleansUp)
struct PhotoLifecycleTests {
    typealias Methods = Plantguide_Collection_V1_CollectionService

    /// A collection service on `backend`, called in-process through its router.
    final class Harness: Sendable {
        let store: CollectionBackend
        let router: RPCRouter

        init(_ backend: TestBackend) async throws {
            store = try await CollectionBackend(backend)
            router = try await Self.router(store)
        }

        static func router(_ store: CollectionBackend) async throws -> RPCRouter {
            var router = RPCRouter()
            router.register(try await store.service())
            return router
        }

        func call<Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message>(
            _ method: RPCMethod<Request, Response>, _ request: Request, as user: String
        ) async throws -> Response {
            let outcome = await router.invoke(method.path, payload: try request.serializedData(), metadata: [RPCServerContext.userIDKey: user])
            if let error = outcome.error { throw error }
            return try Response(serializedBytes: outcome.payload ?? Data())
        }
    }

    @Test("1,000 rounds (300 on PostgreSQL) of user a deleting a plant while user b uploads the same bytes: no acknowledged photo is lost",
          arguments: TestBackend.allCases)
    func deleteRacingUpload(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        let rounds = backend == .sqlite ? 1_000 : 300
        var acknowledged = 0
        var notFound = 0
        for round in 0..<rounds {
            let jpeg = try TestImages.jpeg(TestImages.gradient(width: 8 + round % 40, height: 8 + round / 40))
            _ = try await harness.call(Methods.addPlant, .with { $0.plant.id = "a\(round)"; $0.plant.scientificName = "Ficus lyrata" }, as: "a")
            _ = try await harness.call(Methods.putPhoto, .with { $0.plantID = "a\(round)"; $0.data = jpeg }, as: "a")
            _ = try await harness.call(Methods.addPlant, .with { $0.plant.id = "b\(round)"; $0.plant.scientificName = "Ficus lyrata" }, as: "b")

            async let deletion = harness.call(Methods.deletePlant, .with { $0.id = "a\(round)" }, as: "a")
            async let upload = harness.call(Methods.putPhoto, .with { $0.plantID = "b\(round)"; $0.data = jpeg }, as: "b")
            _ = try await deletion
            let photo = try await upload.photo
            acknowledged += 1
            do {
                let original = try await harness.call(Methods.getPhoto, .with { $0.sha256 = photo.sha256 }, as: "b")
                #expect(original.data == jpeg)
                let thumbnail = try await harness.call(Methods.getPhoto, .with { $0.sha256 = photo.sha256; $0.thumbnailSize = 256 }, as: "b")
                #expect(!thumbnail.data.isEmpty)
            } catch let error as RPCError {
                notFound += 1
                Issue.record("round \(round): b's acknowledged photo is gone: \(error)")
            }
        }
        #expect(acknowledged == rounds && notFound == 0)
    }

    @Test("200 rounds of PutPhoto racing DeletePlant of the same plant: each upload is OK or NOT_FOUND, never UNKNOWN",
          arguments: TestBackend.allCases)
    func uploadRacingDeleteOfItsPlant(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        let jpeg = try TestImages.jpeg(TestImages.gradient(width: 24, height: 16))
        var codes: [String: Int] = [:]
        for round in 0..<200 {
            _ = try await harness.call(Methods.addPlant, .with { $0.plant.id = "p\(round)"; $0.plant.scientificName = "Ficus lyrata" }, as: "a")
            async let deletion = harness.call(Methods.deletePlant, .with { $0.id = "p\(round)" }, as: "a")
            async let upload = harness.call(Methods.putPhoto, .with { $0.plantID = "p\(round)"; $0.data = jpeg }, as: "a")
            _ = try await deletion
            do {
                _ = try await upload
                codes["OK", default: 0] += 1
            } catch let error as RPCError {
                codes[error.code.name, default: 0] += 1
            }
        }
        #expect(Set(codes.keys).isSubset(of: ["OK", "NOT_FOUND"]), "\(codes)")
    }

    @Test("the last reference removed takes the stored bytes; a shared photo stays while anyone shows it", arguments: TestBackend.allCases)
    func lastReferenceRemovesFiles(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        let jpeg = try TestImages.jpeg(TestImages.gradient(width: 40, height: 30))
        for user in ["a", "b"] {
            _ = try await harness.call(Methods.addPlant, .with { $0.plant.id = "p1"; $0.plant.scientificName = "Ficus lyrata" }, as: user)
            _ = try await harness.call(Methods.putPhoto, .with { $0.plantID = "p1"; $0.data = jpeg }, as: user)
        }
        // SQLite keeps one copy of the bytes for everyone; PostgreSQL one per user.
        #expect(try await harness.store.storedPhotos() == (backend == .sqlite ? 1 : 2))
        let first = try await harness.call(Methods.deletePlant, .with { $0.id = "p1" }, as: "a")
        #expect(first.photosRemoved == (backend == .sqlite ? 0 : 1))
        #expect(try await harness.store.storedPhotos() == 1, "b still shows it")
        #expect(try await harness.call(Methods.getPhoto, .with { $0.sha256 = ContentHash.sha256(jpeg) }, as: "b").data == jpeg)
        let removed = try await harness.call(Methods.deletePlant, .with { $0.id = "p1" }, as: "b")
        #expect(removed.photosRemoved == 1)
        #expect(try await harness.store.storedPhotos() == 0)
    }

    @Test("DeletePhoto takes a photo off one plant; the stored bytes go with the last plant that shows it", arguments: TestBackend.allCases)
    func deletePhoto(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        let jpeg = try TestImages.jpeg(TestImages.gradient(width: 40, height: 30))
        var sha = ""
        for user in ["a", "b"] {
            _ = try await harness.call(Methods.addPlant, .with { $0.plant.id = "p1"; $0.plant.scientificName = "Ficus lyrata" }, as: user)
            sha = try await harness.call(Methods.putPhoto, .with { $0.plantID = "p1"; $0.data = jpeg }, as: user).photo.sha256
        }
        let first = try await harness.call(Methods.deletePhoto, .with { $0.plantID = "p1"; $0.sha256 = sha }, as: "a")
        #expect(first.deleted && first.filesRemoved == (backend == .postgres))
        #expect(try await harness.store.storedPhotos() == 1)
        let gone = await harness.router.invoke(Methods.getPhoto.path, payload: try Plantguide_Collection_V1_GetPhotoRequest.with {
            $0.sha256 = sha
        }.serializedData(), metadata: [RPCServerContext.userIDKey: "a"])
        #expect(gone.error?.code == .notFound)
        let last = try await harness.call(Methods.deletePhoto, .with { $0.plantID = "p1"; $0.sha256 = sha }, as: "b")
        #expect(last.deleted && last.filesRemoved)
        #expect(try await harness.store.storedPhotos() == 0)
        let again = try await harness.call(Methods.deletePhoto, .with { $0.plantID = "p1"; $0.sha256 = sha }, as: "b")
        #expect(!again.deleted && !again.filesRemoved)
        await #expect(throws: RPCError.self) {
            _ = try await harness.call(Methods.deletePhoto, .with { $0.plantID = "p1"; $0.sha256 = "../../x" }, as: "b")
        }
    }

    @Test("SQLite: files no row references (an upload or import killed before its commit) are swept at start-up")
    func orphanSweep() async throws {
        let harness = try await Harness(.sqlite)
        let folder = harness.store.folder
        var photoFiles: [String] {
            let enumerator = FileManager.default.enumerator(at: folder.appendingPathComponent("photos"), includingPropertiesForKeys: nil)
            return (enumerator?.allObjects as? [URL] ?? []).filter { !$0.hasDirectoryPath }.map(\.lastPathComponent)
        }
        let kept = try TestImages.jpeg(TestImages.gradient(width: 40, height: 30))
        _ = try await harness.call(Methods.addPlant, .with { $0.plant.id = "p1"; $0.plant.scientificName = "Ficus lyrata" }, as: "a")
        _ = try await harness.call(Methods.putPhoto, .with { $0.plantID = "p1"; $0.data = kept }, as: "a")
        let keptFiles = Set(photoFiles)
        // What a kill -9 between writing files and committing leaves: files of a photo with no row.
        let orphan = String(repeating: "cd", count: 32)
        let orphanFolder = folder.appendingPathComponent("photos/cd")
        try FileManager.default.createDirectory(at: orphanFolder, withIntermediateDirectories: true)
        for name in ["\(orphan).jpeg", "\(orphan).256.jpg", "\(orphan).1024.jpg"] {
            try Data([0xff, 0xd8]).write(to: orphanFolder.appendingPathComponent(name))
        }
        #expect(photoFiles.count == keptFiles.count + 3)

        let restarted = try await Harness.router(harness.store)
        #expect(Set(photoFiles) == keptFiles)
        let outcome = await restarted.invoke(Methods.getPhoto.path, payload: try Plantguide_Collection_V1_GetPhotoRequest.with {
            $0.sha256 = keptFiles.first.map { String($0.prefix(64)) } ?? ""
        }.serializedData(), metadata: [RPCServerContext.userIDKey: "a"])
        #expect(outcome.error == nil)
    }
}
