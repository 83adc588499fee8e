import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

/// ListSchedules with `names_only`: what a task list needs to name its plants, without every schedule's care info.
@Suite("Scheduling: ListSchedules names only", .cleansUp)
struct ListSchedulesNamesTests {
    typealias Methods = Plantguide_Scheduling_V1_SchedulingService

    @Test("names_only answers each schedule's plant id and name, and nothing else; without it, the whole schedule")
    func namesOnly() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scheduling-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        TestResources.track(folder: folder)
        let router = try SchedulingHostileInputTests.router(folder: folder, clock: TestClock(start: Date(timeIntervalSince1970: 1_780_300_800)))
        let user = [RPCServerContext.userIDKey: "u1"]
        for (plant, name) in [("p1", "Monty"), ("p2", "Fig")] {
            let put = await router.invoke(Methods.putSchedule.path, payload: try Plantguide_Scheduling_V1_PutScheduleRequest.with {
                $0.schedule = .with {
                    $0.plantID = plant
                    $0.plantName = name
                    $0.careInfo = .with {
                        $0.scientificName = "Monstera deliciosa"
                        $0.watering.frequency = .weekly
                        $0.fieldSources = ["watering": .catalog]
                    }
                }
            }.serializedData(), metadata: user)
            #expect(put.error == nil)
        }
        func list(namesOnly: Bool) async throws -> Plantguide_Scheduling_V1_ListSchedulesResponse {
            let outcome = await router.invoke(Methods.listSchedules.path, payload: try Plantguide_Scheduling_V1_ListSchedulesRequest.with {
                $0.namesOnly = namesOnly
            }.serializedData(), metadata: user)
            return try Plantguide_Scheduling_V1_ListSchedulesResponse(serializedBytes: try #require(outcome.payload))
        }

        let names = try await list(namesOnly: true)
        let whole = try await list(namesOnly: false)

        #expect(names.schedules.map { [$0.plantID, $0.plantName] } == [["p1", "Monty"], ["p2", "Fig"]])
        #expect(names.schedules.allSatisfy { !$0.hasCareInfo && $0.startDate.isEmpty && $0.setting == .unspecified })
        #expect(whole.schedules.allSatisfy { $0.careInfo.fieldSources["watering"] == .catalog })
        #expect(try names.serializedData().count * 4 < whole.serializedData().count)
    }
}
