import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("Moving a collection from SQLite to PostgreSQL", .cpuHeavy)
struct CollectionCopyTests {
    typealias Methods = Plantguide_Collection_V1_CollectionService

    /// What the test reads of each user: plants (with photos and times), a search, history, journal, and every photo's bytes.
    private static func answers(_ client: RPCClient) async throws -> [String] {
        var answers: [String] = []
        for user in ["ada", "bo"] {
            let options = RPCCallOptions(metadata: ["plantguide-user-id": user])
            let list = try await client.call(Methods.listPlants, .with { $0.sort = .name }, options: options)
            answers.append(try list.jsonString())
            var search = try await client.call(Methods.searchPlants, .with { $0.query = "swiss" }, options: options)
            for index in search.hits.indices { search.hits[index].rank = 0 }  // each backend scores on its own scale
            answers.append(try search.jsonString())
            answers.append(try await client.call(Methods.listIdentifications, .init(), options: options).jsonString())
            for plant in list.plants {
                answers.append(try await client.call(Methods.listJournalEvents, .with { $0.plantID = plant.id }, options: options).jsonString())
                for photo in plant.photos {
                    for size in [0, 256, 1024] {
                        let bytes = try await client.call(Methods.getPhoto, .with { $0.sha256 = photo.sha256; $0.thumbnailSize = UInt32(size) },
                                                          options: options)
                        answers.append("\(user) \(photo.sha256) \(size): \(bytes.contentSha256) \(bytes.data.count) \(bytes.mediaType)")
                    }
                }
            }
        }
        return answers
    }

    @Test("copy-data moves plants, photos, history and journal; run again it changes nothing; on PostgreSQL every answer is the same")
    func moveDeployment() async throws {
        let onSQLite = try await ServiceProcess("plantguide-collection", endpoint: "tcp://127.0.0.1:\(try FreePort.next())")
        let shared = try TestImages.jpeg(TestImages.gradient(width: 300, height: 200))
        let own = try TestImages.jpeg(TestImages.halves(width: 120, height: 160))
        let before: [String]
        do {
            let client = try RPCClient(target: onSQLite.endpoint, configuration: .forTests)
            defer { client.close() }
            for user in ["ada", "bo"] {
                let options = RPCCallOptions(metadata: ["plantguide-user-id": user])
                _ = try await client.call(Methods.addPlant, .with {
                    $0.plant.id = "m1"
                    $0.plant.scientificName = "Monstera deliciosa"
                    $0.plant.commonNames = ["Swiss cheese plant", "Fensterblatt"]
                    $0.plant.location = "Küche"
                    $0.plant.favorite = user == "ada"
                }, options: options)
                _ = try await client.call(Methods.addPlant, .with {
                    $0.plant.id = "f1"
                    $0.plant.scientificName = "Ficus lyrata"
                    $0.plant.notes = "by the window"
                }, options: options)
                _ = try await client.call(Methods.putPhoto, .with { $0.plantID = "m1"; $0.data = shared }, options: options)
                _ = try await client.call(Methods.addIdentification, .with {
                    $0.identification.id = "i1"
                    $0.identification.plantID = "m1"
                    $0.identification.confidence = 0.75
                    $0.identification.topResults = [.with { $0.scientificName = "Monstera deliciosa"; $0.score = 0.75 }]
                }, options: options)
                _ = try await client.call(Methods.addJournalEvent, .with { $0.event.id = "e1"; $0.event.plantID = "f1"; $0.event.kind = .watered },
                                          options: options)
            }
            let ada = RPCCallOptions(metadata: ["plantguide-user-id": "ada"])
            _ = try await client.call(Methods.putPhoto, .with { $0.plantID = "f1"; $0.data = own; $0.kind = .reference }, options: ada)
            before = try await Self.answers(client)
        }
        #expect(await onSQLite.terminate() == 0)

        let database = try await TestPostgres.environment()
        let copy = try await TestPostgres.copyData("collection", from: onSQLite.dataDirectory, into: database)
        let again = try await TestPostgres.copyData("collection", from: onSQLite.dataDirectory, into: database)
        for (table, rows) in [("plants", 4), ("identifications", 2), ("journal events", 2), ("photo links", 3), ("photos", 3)] {
            #expect(copy.status == 0 && copy.output.contains("\(table): source \(rows) rows"), "\(copy.output)")
            #expect(copy.output.contains("\(rows) identical, 0 missing, 0 different"), "\(table): \(copy.output)")
            #expect(again.status == 0 && again.output.contains("target \(rows) rows"), "\(again.output)")
        }

        let onPostgres = try await ServiceProcess("plantguide-collection", endpoint: "tcp://127.0.0.1:\(try FreePort.next())",
                                                  environment: database)
        let client = try RPCClient(target: onPostgres.endpoint, configuration: .forTests)
        defer { client.close() }
        let after = try await Self.answers(client)
        #expect(after.count == before.count)
        for (old, new) in zip(before, after) { #expect(old == new) }
        #expect(await onPostgres.terminate() == 0)
    }
}
