import Foundation
import GRDB
import Logging
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Scheduling
import SwiftProtobuf
import Testing

/// Inputs that an outside fuzzing run found to kill the scheduling service, or to poison it for later: each is
/// now INVALID_ARGUMENT naming the field, and values stored by older code no longer stop a read or a replan.
@Suite("Scheduling: hostile input", .cleansUp)
struct SchedulingHostileInputTests {
    typealias Methods = Plantguide_Scheduling_V1_SchedulingService
    let clock = TestClock(start: Date(timeIntervalSince1970: 1_780_300_800))  // 2026-06-01 08:00 UTC
    let folder: URL
    let router: RPCRouter
    let user = [RPCServerContext.userIDKey: "u1"]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("scheduling-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        TestResources.track(folder: folder)
        router = try Self.router(folder: folder, clock: clock)
    }

    static func router(folder: URL, clock: TestClock) throws -> RPCRouter {
        var configuration = SchedulingConfiguration(dataDirectory: folder)
        configuration.now = { clock.now }
        var router = RPCRouter()
        router.register(try SchedulingRPCService(configuration: configuration, logger: Logger(label: "test")))
        return router
    }

    /// Timestamps at and beyond proto3's range, as the fuzzer sent them.
    static let extremes: [Google_Protobuf_Timestamp] = [
        .init(seconds: .max, nanos: 0), .init(seconds: .min, nanos: 0), .init(seconds: 0, nanos: -1),
        .init(seconds: 253_402_300_800, nanos: 0), .init(seconds: 0, nanos: 1_000_000_000),
    ]

    private func call<Request: SwiftProtobuf.Message, Response>(
        _ method: RPCMethod<Request, Response>, _ request: Request
    ) async throws -> RPCRouter.Outcome {
        await router.invoke(method.path, payload: try request.serializedData(), metadata: user)
    }

    private func schedule(_ plant: String, winterMultiplier: Double? = nil) -> Plantguide_Scheduling_V1_Schedule {
        .with {
            $0.plantID = plant
            $0.plantName = "Monty"
            $0.setting = .outdoor
            $0.careInfo = .with {
                $0.scientificName = "Monstera deliciosa"
                $0.watering.frequency = .weekly
                if let winterMultiplier {
                    $0.watering.seasonalAdjustments = [.with { $0.season = .summer; $0.intervalMultiplier = winterMultiplier }]
                }
            }
        }
    }

    @Test("CompleteTasks and RecordCareEvent with timestamps outside the range are INVALID_ARGUMENT naming the field")
    func extremeTimestamps() async throws {
        #expect(try await call(Methods.putSchedule, .with { $0.schedule = schedule("p1") }).error == nil)
        for timestamp in Self.extremes {
            let complete = try await call(Methods.completeTasks, .with { $0.taskIds = ["p1|watering|2026-06-01"]; $0.completedAt = timestamp })
            #expect(complete.error?.code == .invalidArgument && complete.error?.message.contains("completed_at") == true)
            let record = try await call(Methods.recordCareEvent, .with { $0.plantID = "p1"; $0.type = .watering; $0.occurredAt = timestamp })
            #expect(record.error?.code == .invalidArgument && record.error?.message.contains("occurred_at") == true)
        }
    }

    @Test("PutPreferences with an unknown task type or an absurd latitude is INVALID_ARGUMENT")
    func unknownTaskType() async throws {
        let unknown = try await call(Methods.putPreferences, .with {
            $0.preferences.notifyTime = "07:30"
            $0.preferences.taskTypes = [.with { $0.type = .init(rawValue: Int(Int32.max)) ?? .unspecified; $0.enabled = true }]
        })
        #expect(unknown.error?.code == .invalidArgument && unknown.error?.message.contains("task_types") == true)
        let latitude = try await call(Methods.putPreferences, .with { $0.preferences.location.latitude = .infinity })
        #expect(latitude.error?.code == .invalidArgument)
        #expect(latitude.error?.details.fieldViolations.map(\.field) == ["preferences.location.latitude"])
    }

    @Test("a seasonal multiplier of 1e300, NaN or an interval beyond a year is INVALID_ARGUMENT", arguments: [1e300, .nan, -1, 13])
    func absurdMultiplier(_ multiplier: Double) async throws {
        let put = try await call(Methods.putSchedule, .with { $0.schedule = schedule("p1", winterMultiplier: multiplier) })
        #expect(put.error?.code == .invalidArgument && put.error?.message.contains("interval_multiplier") == true)
        let interval = try await call(Methods.putSchedule, .with {
            $0.schedule = schedule("p2")
            $0.schedule.careInfo.watering.intervalDays = .max
        })
        #expect(interval.error?.code == .invalidArgument && interval.error?.message.contains("interval_days") == true)
    }

    @Test("SQLite: a database holding the worst values older code accepted opens, lists, replans and plans the poisoned season")
    func storedPoison() async throws {
        #expect(try await call(Methods.putPreferences, .with { $0.preferences.seasonalAdjustment = true }).error == nil)
        #expect(try await call(Methods.putSchedule, .with { $0.schedule = schedule("p1") }).error == nil)
        // What older code stored: a summer multiplier of 1e300 and task times far outside the Timestamp range.
        let database = try DatabaseQueue(path: folder.appendingPathComponent("scheduling.sqlite").path)
        let poisoned = try schedule("p1", winterMultiplier: 1e300).serializedData()
        try await database.write { db in
            try db.execute(sql: "UPDATE schedule SET message = ? WHERE plantID = 'p1'", arguments: [poisoned])
            try db.execute(sql: "UPDATE task SET remindAt = 1e300, completedAt = -1e300")
        }
        try await database.close()

        // A restart over it, in the poisoned season: planning, listing and the calendar all answer.
        clock.advance(seconds: 14 * 86_400)
        let restarted = try Self.router(folder: folder, clock: clock)
        let list = await restarted.invoke(Methods.listTasks.path, payload: Data(), metadata: user)
        #expect(list.error == nil)
        let replan = await restarted.invoke(Methods.putPreferences.path, payload: try Plantguide_Scheduling_V1_PutPreferencesRequest.with {
            $0.preferences.seasonalAdjustment = true
        }.serializedData(), metadata: user)
        #expect(replan.error == nil)
        let calendar = await restarted.invoke(Methods.getCalendar.path, payload: Data(), metadata: user)
        #expect(calendar.error == nil)
    }
}
