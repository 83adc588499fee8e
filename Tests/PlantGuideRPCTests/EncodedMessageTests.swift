import Foundation
import PlantGuideProtos
import PlantGuideRPC
import Testing

/// `EncodedMessage`, which a handler returns when its response holds parts kept encoded (scheduling's stored
/// schedules): the bytes must decode as the message with those parts set, whatever their length.
@Suite("Responses put together from encoded parts")
struct EncodedMessageTests {
    typealias Response = Plantguide_Scheduling_V1_GetScheduleResponse

    @Test("a field appended as its encoding decodes as the field set, for short and multi-byte lengths", arguments: [0, 10, 300, 20_000])
    func appendedFieldDecodes(noteLength: Int) throws {
        let schedule = Plantguide_Scheduling_V1_Schedule.with {
            $0.plantID = "p1"
            $0.plantName = "Monty"
            $0.careInfo.scientificName = "Monstera deliciosa"
            $0.careInfo.notes = [String(repeating: "n", count: noteLength)]
        }
        let tasks = [Plantguide_Scheduling_V1_CareTask.with { $0.id = "t1"; $0.plantID = "p1"; $0.dueDate = "2026-11-29" }]
        let encoded = try EncodedMessage<Response>(.with { $0.openTasks = tasks }, appending: [(number: 1, encoded: try schedule.serializedBytes())])
        let decoded = try Response(serializedBytes: encoded.bytes)
        #expect(decoded == .with { $0.schedule = schedule; $0.openTasks = tasks })
    }

    @Test("a handler registered with registerEncoded answers its bytes as they are")
    func routerSendsTheBytes() async throws {
        let schedule = Plantguide_Scheduling_V1_Schedule.with { $0.plantID = "p9" }
        var router = RPCRouter()
        router.registerEncoded(Plantguide_Scheduling_V1_SchedulingService.getSchedule) { request, _ in
            #expect(request.plantID == "p9")
            return try EncodedMessage(Response(), appending: [(number: 1, encoded: try schedule.serializedBytes())])
        }
        let outcome = await router.invoke(Plantguide_Scheduling_V1_SchedulingService.getSchedule.path,
                                          payload: try Plantguide_Scheduling_V1_GetScheduleRequest.with { $0.plantID = "p9" }.serializedBytes())
        #expect(outcome.error == nil)
        #expect(try Response(serializedBytes: outcome.payload ?? Data()).schedule == schedule)
    }
}
