import Foundation
import PlantGuideStorage
import Scheduling
import Testing

@Suite("Database maintenance")
struct DatabaseMaintenanceTests {
    @Test("PRAGMA optimize gathers statistics of the tables a service's writes used, so that plans follow the data")
    func optimizeGathersStatistics() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("optimize-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let database = try SchedulingDatabase.open(path: folder.appendingPathComponent("scheduling.sqlite").path)
        let store = SchedulingStore(records: SQLiteScheduling(writer: database))
        for plant in 0..<50 {
            _ = try await store.putSchedule(.with {
                $0.plantID = "p\(plant)"
                $0.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly }
            }, owner: "u\(plant % 5)")
        }
        let before = try await database.read { db in try db.tableExists("sqlite_stat1") }

        await ServiceDatabase.optimizeAll()

        let analysed = try await database.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT tbl FROM sqlite_stat1") }
        #expect(!before && analysed.contains("task"), "\(analysed)")
    }
}
