import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("Moving scheduling from SQLite to PostgreSQL")
struct SchedulingCopyTests {
    typealias Methods = Plantguide_Scheduling_V1_SchedulingService

    /// What the test reads of each user: preferences, schedules, open and done tasks, badge and month counts.
    private static func answers(_ client: RPCClient) async throws -> [String] {
        var answers: [String] = []
        for user in ["ada", "bo"] {
            let options = RPCCallOptions(metadata: ["plantguide-user-id": user])
            answers.append(try await client.call(Methods.getPreferences, .init(), options: options).jsonString())
            answers.append(try await client.call(Methods.listSchedules, .init(), options: options).jsonString())
            answers.append(try await client.call(Methods.listTasks, .with { $0.view = .open }, options: options).jsonString())
            answers.append(try await client.call(Methods.listTasks, .with {
                $0.view = .range
                $0.fromDate = "2020-01-01"
                $0.toDate = "2030-12-31"
                $0.limit = 1_000
            }, options: options).jsonString())
            let counts = try await client.call(Methods.getPlantTaskCounts, .init(), options: options).counts
            answers.append(try counts.keys.sorted().map { "\($0): \(try counts[$0]!.jsonString())" }.joined(separator: ", "))
        }
        return answers
    }

    @Test("copy-data moves preferences, schedules, tasks and webhooks; run again it changes nothing; on PostgreSQL every answer is the same")
    func moveDeployment() async throws {
        let onSQLite = try await ServiceProcess("plantguide-scheduling", endpoint: "tcp://127.0.0.1:\(try FreePort.next())",
                                                environment: ["PLANTGUIDE_REMINDERS_BIND": "tcp://127.0.0.1:\(try FreePort.next())",
                                                              // Its webhook listens on loopback, over http.
                                                              "PLANTGUIDE_ALLOW_LOOPBACK_RECEIVERS": "1"])
        let before: [String]
        do {
            let client = try RPCClient(target: onSQLite.endpoint, configuration: .forTests)
            defer { client.close() }
            for user in ["ada", "bo"] {
                let options = RPCCallOptions(metadata: ["plantguide-user-id": user])
                _ = try await client.call(Methods.putPreferences, .with {
                    $0.preferences.timeZone = user == "ada" ? "Europe/Berlin" : "America/New_York"
                    $0.preferences.notifyTime = "07:30"
                }, options: options)
                for plant in ["m1", "f1"] {
                    _ = try await client.call(Methods.putSchedule, .with {
                        $0.schedule.plantID = plant
                        $0.schedule.plantName = "\(plant) of \(user)"
                        $0.schedule.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .weekly }
                    }, options: options)
                }
                _ = try await client.call(Methods.registerWebhook, .with {
                    $0.id = "h1"
                    $0.url = "http://127.0.0.1:9/hook"
                    $0.secret = "0123456789abcdef-secret"
                }, options: options)
                _ = try await client.call(Methods.addTask, .with {
                    $0.task = .with { $0.id = "repot"; $0.plantID = "m1"; $0.type = .repotting; $0.dueDate = "2030-01-15"; $0.note = "bigger pot" }
                }, options: options)
                _ = try await client.call(Methods.recordCareEvent, .with { $0.plantID = "f1"; $0.type = .watering }, options: options)
            }
            before = try await Self.answers(client)
        }
        #expect(await onSQLite.terminate() == 0)

        let database = try await TestPostgres.environment()
        let copy = try await TestPostgres.copyData("scheduling", from: onSQLite.dataDirectory, into: database)
        let again = try await TestPostgres.copyData("scheduling", from: onSQLite.dataDirectory, into: database)
        #expect(copy.status == 0 && again.status == 0, "\(copy.output)\n\(again.output)")
        for table in ["preferences", "schedules", "tasks", "webhooks"] {
            let line = copy.output.split(separator: "\n").first { $0.hasPrefix("\(table): ") }.map(String.init) ?? ""
            #expect(line.contains(" 0 missing, 0 different") && !line.contains("source 0 rows"), "\(table): \(copy.output)")
        }

        let onPostgres = try await ServiceProcess("plantguide-scheduling", endpoint: "tcp://127.0.0.1:\(try FreePort.next())",
                                                  environment: database.merging(["PLANTGUIDE_REMINDERS_BIND": "tcp://127.0.0.1:\(try FreePort.next())"]) { $1 })
        let client = try RPCClient(target: onPostgres.endpoint, configuration: .forTests)
        defer { client.close() }
        let after = try await Self.answers(client)
        #expect(after.count == before.count)
        for (old, new) in zip(before, after) { #expect(old == new) }
        #expect(await onPostgres.terminate() == 0)
    }
}
