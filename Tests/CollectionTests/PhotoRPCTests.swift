import Collection
import Foundation
import Logging
import PlantGuideImaging
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("Photos over RPC", .cpuHeavy, .cleansUp)
struct PhotoRPCTests {
    typealias Methods = Plantguide_Collection_V1_CollectionService

    /// A collection server on `backend`, with plant p1 and p2 of user a and q1 of user b.
    private func start(_ backend: TestBackend, maxPhotoBytes: Int = 15 << 20) async throws -> (RPCServer, RPCClient, CollectionBackend) {
        let store = try await CollectionBackend(backend)
        var logger = Logger(label: "collection-test")
        logger.logLevel = .warning
        let server = RPCServer(
            configuration: .init(bindEndpoint: "tcp://127.0.0.1:0"),
            services: [try await store.service { $0.maxPhotoBytes = maxPhotoBytes }], logger: logger)
        var clientConfiguration = RPCClientConfiguration.forTests
        clientConfiguration.maxMessageSize = 128 << 20
        TestResources.track(server)
        try server.startInProcess()  // photos, not sockets, are the subject
        let client = RPCClient(inProcess: server, configuration: clientConfiguration)
        for (user, id) in [("a", "p1"), ("a", "p2"), ("b", "q1")] {
            _ = try await client.call(Methods.addPlant, .with { $0.plant.id = id; $0.plant.scientificName = "Ficus lyrata" }, options: caller(user))
        }
        return (server, client, store)
    }

    private func caller(_ user: String) -> RPCCallOptions { .init(timeout: TestTime.scaled(.seconds(30)), metadata: ["plantguide-user-id": user]) }

    @Test("a portrait phone photo: stored upright, deduplicated, served with thumbnails and hashes", arguments: TestBackend.allCases)
    func putAndGet(backend: TestBackend) async throws {
        let (server, client, store) = try await start(backend)
        defer { withExtendedLifetime(store) {} }
        defer { client.close() }
        let jpeg = TestImages.withOrientation(try TestImages.jpeg(TestImages.gradient(width: 1_600, height: 1_200)), 6)

        let put = try await client.call(Methods.putPhoto, .with { $0.plantID = "p1"; $0.data = jpeg }, options: caller("a"))
        let again = try await client.call(Methods.putPhoto, .with { $0.plantID = "p2"; $0.data = jpeg }, options: caller("a"))
        let original = try await client.call(Methods.getPhoto, .with { $0.sha256 = put.photo.sha256 }, options: caller("a"))
        let small = try await client.call(Methods.getPhoto, .with { $0.sha256 = put.photo.sha256; $0.thumbnailSize = 256 }, options: caller("a"))
        let plant = try await client.call(Methods.getPlant, .with { $0.id = "p1" }, options: caller("a")).plant

        #expect(put.photo.width == 1_200 && put.photo.height == 1_600, "orientation 6 turns it upright")
        #expect(put.photo.mediaType == "image/jpeg" && put.photo.sizeBytes == UInt64(jpeg.count) && put.photo.kind == .captured)
        #expect(!put.deduplicated && again.deduplicated && again.photo.sha256 == put.photo.sha256)
        #expect(original.data == jpeg && original.contentSha256 == put.photo.sha256)
        let thumbnail = try ImageDecoder.inspect(small.data)
        #expect(thumbnail.width == 192 && thumbnail.height == 256 && small.mediaType == "image/jpeg")
        #expect(small.contentSha256 != put.photo.sha256 && small.contentSha256.count == 64)
        #expect(plant.photos.map(\.sha256) == [put.photo.sha256])
        await server.shutdown()
    }

    @Test("an iPhone HEIC: stored as sent, upright, its thumbnails JPEG", arguments: TestBackend.allCases)
    func heic(backend: TestBackend) async throws {
        let (server, client, store) = try await start(backend)
        defer { withExtendedLifetime(store) {} }
        defer { client.close() }
        let heic = try TestImages.heic(TestImages.gradient(width: 1_600, height: 1_200), rotatedClockwise: true)

        let put = try await client.call(Methods.putPhoto, .with { $0.plantID = "p1"; $0.data = heic }, options: caller("a"))
        let original = try await client.call(Methods.getPhoto, .with { $0.sha256 = put.photo.sha256 }, options: caller("a"))
        let small = try await client.call(Methods.getPhoto, .with { $0.sha256 = put.photo.sha256; $0.thumbnailSize = 256 }, options: caller("a"))

        #expect(put.photo.mediaType == "image/heic" && put.photo.width == 1_200 && put.photo.height == 1_600)
        #expect(original.data == heic && original.mediaType == "image/heic")
        let thumbnail = try ImageDecoder.inspect(small.data)
        #expect(thumbnail.format == .jpeg && thumbnail.width == 192 && thumbnail.height == 256 && small.mediaType == "image/jpeg")
        await server.shutdown()
    }

    @Test("bad photos get INVALID_ARGUMENT saying why, a 100 MB upload RESOURCE_EXHAUSTED, and the service goes on",
          arguments: TestBackend.allCases)
    func badPhotos(backend: TestBackend) async throws {
        let (server, client, store) = try await start(backend, maxPhotoBytes: 1 << 20)
        defer { withExtendedLifetime(store) {} }
        defer { client.close() }
        let photo = try TestImages.jpeg(TestImages.gradient(width: 640, height: 480))
        var damaged = [UInt8](photo)
        for index in stride(from: 700, to: damaged.count - 2, by: 97) { damaged[index] ^= 0xA5 }
        let cases: [(String, Data, String)] = [
            ("empty", Data(), "empty"),
            ("text", Data("hello".utf8), "not a JPEG, PNG, WebP or HEIC"),
            ("truncated", photo.prefix(3_000), "truncated"),
            ("damaged", Data(damaged), "JPEG"),
            ("bomb", TestImages.pngHeader(width: 100_000, height: 100_000), "megapixels"),
            ("too big", Data(repeating: 0xFF, count: 2 << 20), "limit is 1048576 bytes"),
        ]
        for (name, data, words) in cases {
            let error = await #expect(throws: RPCError.self, "\(name)") {
                _ = try await client.call(Methods.putPhoto, .with { $0.plantID = "p1"; $0.data = data }, options: caller("a"))
            }
            #expect(error?.code == .invalidArgument, "\(name)")
            #expect(error?.message.contains(words) == true, "\(name): \(error?.message ?? "")")
        }
        let huge = await #expect(throws: RPCError.self) {
            _ = try await client.call(Methods.putPhoto, .with { $0.plantID = "p1"; $0.data = Data(count: 100 << 20) }, options: caller("a"))
        }
        #expect(huge?.code == .resourceExhausted)

        let health = try await client.call(Plantguide_Health_V1_Health.check, .init())
        let stored = try await client.call(Methods.putPhoto, .with { $0.plantID = "p1"; $0.data = photo }, options: caller("a"))
        #expect(health.status == .serving && stored.photo.width == 640)
        await server.shutdown()
    }

    @Test("photos are private to the owners whose plants show them; the last unlink deletes the stored bytes", arguments: TestBackend.allCases)
    func ownershipAndDeletion(backend: TestBackend) async throws {
        let (server, client, store) = try await start(backend)
        defer { client.close() }
        let jpeg = try TestImages.jpeg(TestImages.halves(width: 300, height: 200))
        let sha = try await client.call(Methods.putPhoto, .with { $0.plantID = "p1"; $0.data = jpeg }, options: caller("a")).photo.sha256
        _ = try await client.call(Methods.putPhoto, .with { $0.plantID = "p2"; $0.data = jpeg }, options: caller("a"))

        let stranger = await #expect(throws: RPCError.self) {
            _ = try await client.call(Methods.getPhoto, .with { $0.sha256 = sha }, options: caller("b"))
        }
        let foreignPlant = await #expect(throws: RPCError.self) {
            _ = try await client.call(Methods.putPhoto, .with { $0.plantID = "p1"; $0.data = jpeg }, options: caller("b"))
        }
        #expect(stranger?.code == .notFound && foreignPlant?.code == .notFound)

        #expect(try await store.storedPhotos() == 1)
        let first = try await client.call(Methods.deletePlant, .with { $0.id = "p1" }, options: caller("a"))
        #expect(first.photosRemoved == 0)
        #expect(try await store.storedPhotos() == 1, "p2 still shows it")
        let second = try await client.call(Methods.deletePlant, .with { $0.id = "p2" }, options: caller("a"))
        #expect(second.photosRemoved == 1)
        #expect(try await store.storedPhotos() == 0)
        let gone = await #expect(throws: RPCError.self) {
            _ = try await client.call(Methods.getPhoto, .with { $0.sha256 = sha }, options: caller("a"))
        }
        #expect(gone?.code == .notFound)
        await server.shutdown()
    }
}
