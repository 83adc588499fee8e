import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("Moving care data from SQLite to PostgreSQL")
struct CareDataCopyTests {
    @Test("copy-data moves a SQLite deployment's cache; on PostgreSQL the service answers from it without asking Trefle again")
    func moveDeployment() async throws {
        let species = try Fixtures.trefle("species-sorbus-aucuparia")
        let trefle = try FakeHTTPServer { request in
            request.path == "/api/v1/species/sorbus-aucuparia" ? .json(species) : .reply(status: 404)
        }
        let trefleEnvironment = ["PLANTGUIDE_TREFLE_TOKEN": "t", "PLANTGUIDE_TREFLE_URL": trefle.baseURL.absoluteString]
        let request = Plantguide_Caredata_V1_GetCareInfoRequest.with { $0.scientificName = "Sorbus aucuparia" }
        let method = Plantguide_Caredata_V1_CareDataService.getCareInfo

        let onSQLite = try await ServiceProcess("plantguide-caredata", endpoint: "tcp://127.0.0.1:\(try FreePort.next())",
                                                environment: trefleEnvironment)
        let before: Plantguide_Caredata_V1_GetCareInfoResponse
        do {
            let client = try RPCClient(target: onSQLite.endpoint, configuration: .forTests)
            defer { client.close() }
            before = try await client.call(method, request)
        }
        #expect(await onSQLite.terminate() == 0)

        let database = try await TestPostgres.environment()
        let copy = try await TestPostgres.copyData("caredata", from: onSQLite.dataDirectory, into: database)
        let again = try await TestPostgres.copyData("caredata", from: onSQLite.dataDirectory, into: database)
        #expect(copy.status == 0 && copy.output.contains("1 identical, 0 missing, 0 different"), "\(copy.output)")
        #expect(again.status == 0 && again.output.contains("target 1 rows"), "\(again.output)")

        let onPostgres = try await ServiceProcess("plantguide-caredata", endpoint: "tcp://127.0.0.1:\(try FreePort.next())",
                                                  environment: trefleEnvironment.merging(database) { $1 })
        let client = try RPCClient(target: onPostgres.endpoint, configuration: .forTests)
        defer { client.close() }
        let after = try await client.call(method, request)
        #expect(after.careInfo.source == .cache && before.careInfo.source == .trefle)
        var comparable = after.careInfo
        comparable.source = before.careInfo.source
        #expect(comparable == before.careInfo, "the same care info, now from the cache")
        #expect(trefle.count(path: "/api/v1/species/sorbus-aucuparia") == 1)
        #expect(await onPostgres.terminate() == 0)
    }
}
