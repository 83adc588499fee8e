import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

/// The service executables as real processes: killed, restarted, several behind one client.
@Suite("Service processes", .serialized, .cleansUp)
struct ServiceProcessTests {
    @Test("a killed server gives UNAVAILABLE within the deadline, and calls succeed once it is back on its port")
    func killAndRestart() async throws {
        let endpoint = "tcp://127.0.0.1:\(try FreePort.next())"
        let first = try await ServiceProcess("plantguide-collection", endpoint: endpoint)
        let client = try RPCClient(target: endpoint, configuration: .forTests)
        defer { client.close() }
        #expect(try await client.call(Plantguide_Health_V1_Health.check, .init()).status == .serving)

        await first.kill()
        let clock = ContinuousClock()
        let started = clock.now
        let error = await #expect(throws: RPCError.self) {
            // The same deadline the time check below allows: pinned to one core, noticing the dead peer can take
            // longer than 5 s, and an unscaled deadline then ends the call first (DEADLINE_EXCEEDED).
            _ = try await client.call(Plantguide_Health_V1_Health.check, .init(), options: .init(timeout: TestTime.scaled(.seconds(5))))
        }
        #expect(error?.code == .unavailable)
        #expect(clock.now - started < TestTime.scaled(.seconds(5)))

        let second = try await ServiceProcess("plantguide-collection", endpoint: endpoint, dataDirectory: first.dataDirectory)
        let reply = try await client.call(
            Plantguide_Health_V1_Health.check, .init(), options: .init(timeout: TestTime.scaled(.seconds(20)), waitForReady: true))
        #expect(reply.status == .serving)
        #expect(await second.terminate() == 0)
    }

    @Test("three processes share the calls; a killed one is avoided and no call is lost", .noStackBeside)
    func threeEndpoints() async throws {
        var services: [ServiceProcess] = []
        for _ in 0..<3 {
            services.append(try await ServiceProcess("plantguide-caredata", endpoint: "tcp://127.0.0.1:\(try FreePort.next())"))
        }
        let client = try RPCClient(target: services.map(\.endpoint).joined(separator: ","), configuration: .forTests)
        defer { client.close() }
        #expect(await client.waitUntilAllEndpointsReady(timeout: TestTime.scaled(.seconds(20))))

        try await checks(client, count: 300)
        let counts = try await healthCounts(services)
        for count in counts { #expect(count >= 30, "every endpoint should get a share: \(counts)") }

        await services[0].kill()
        try await checks(client, count: 300)
        let later = try await healthCounts(Array(services[1...]))

        #expect(later.reduce(0, +) - counts[1...].reduce(0, +) >= 300)
        for service in services[1...] { await service.terminate() }
    }

    @Test("care data survives kill -9: after a restart the cache answers and Trefle is not asked again", arguments: TestBackend.allCases)
    func careDataCacheSurvivesKill(backend: TestBackend) async throws {
        let species = try Fixtures.trefle("species-sorbus-aucuparia")
        let trefle = try FakeHTTPServer { request in
            request.path == "/api/v1/species/sorbus-aucuparia" ? .json(species) : .reply(status: 404)
        }
        var environment = ["PLANTGUIDE_TREFLE_TOKEN": "t", "PLANTGUIDE_TREFLE_URL": trefle.baseURL.absoluteString]
        if backend == .postgres { environment.merge(try await TestPostgres.environment()) { $1 } }
        let endpoint = "tcp://127.0.0.1:\(try FreePort.next())"
        let request = Plantguide_Caredata_V1_GetCareInfoRequest.with { $0.scientificName = "Sorbus aucuparia" }
        let method = Plantguide_Caredata_V1_CareDataService.getCareInfo

        let first = try await ServiceProcess("plantguide-caredata", endpoint: endpoint, environment: environment)
        let client = try RPCClient(target: endpoint, configuration: .forTests)
        defer { client.close() }
        #expect(try await client.call(method, request).careInfo.source == .trefle)
        await first.kill()

        let second = try await ServiceProcess(
            "plantguide-caredata", endpoint: endpoint, dataDirectory: first.dataDirectory, environment: environment)
        let reply = try await client.call(method, request, options: .init(timeout: TestTime.scaled(.seconds(20)), waitForReady: true))

        #expect(reply.careInfo.source == .cache)
        #expect(trefle.count(path: "/api/v1/species/sorbus-aucuparia") == 1)
        #expect(await second.terminate() == 0)
    }

    @Test("collection: a kill -9 right after acknowledged writes loses none of them")
    func collectionSurvivesKill() async throws {
        typealias Methods = Plantguide_Collection_V1_CollectionService
        let endpoint = "tcp://127.0.0.1:\(try FreePort.next())"
        let first = try await ServiceProcess("plantguide-collection", endpoint: endpoint)
        let client = try RPCClient(target: endpoint, configuration: .forTests)
        defer { client.close() }
        let user = RPCCallOptions(timeout: TestTime.scaled(.seconds(20)), metadata: ["plantguide-user-id": "u1"])

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<300 {
                group.addTask {
                    let reply = try await client.call(Methods.addPlant, .with {
                        $0.plant.id = "p\(index)"
                        $0.plant.scientificName = "Monstera deliciosa"
                        $0.plant.notes = "plant number \(index)"
                    }, options: user)
                    #expect(reply.created)
                }
            }
            try await group.waitForAll()
        }
        _ = try await client.call(Methods.addJournalEvent, .with {
            $0.event.id = "e1"
            $0.event.plantID = "p299"
            $0.event.kind = .watered
        }, options: user)
        await first.kill()  // SIGKILL straight after the last acknowledgement

        let second = try await ServiceProcess("plantguide-collection", endpoint: endpoint, dataDirectory: first.dataDirectory)
        var waiting = user
        waiting.waitForReady = true
        let listed = try await client.call(Methods.listPlants, .with { $0.pageSize = 500 }, options: waiting)
        let journal = try await client.call(Methods.listJournalEvents, .with { $0.plantID = "p299" }, options: user)

        #expect(listed.totalMatching == 300 && Set(listed.plants.map(\.id)).count == 300)
        #expect(journal.events.map(\.id) == ["e1"])
        let anonymous = await #expect(throws: RPCError.self) {
            _ = try await client.call(Methods.listPlants, .init())
        }
        #expect(anonymous?.code == .unauthenticated)
        #expect(await second.terminate() == 0)
    }

    @Test("scheduling: a kill -9 mid-delivery and a restart deliver every reminder, each id to the receiver")
    func remindersSurviveKill() async throws {
        typealias Methods = Plantguide_Scheduling_V1_SchedulingService
        let hook = try FakeHTTPServer { _ in .delayed(.milliseconds(100), .reply(status: 200)) }
        let endpoint = "tcp://127.0.0.1:\(try FreePort.next())"
        let environment = [
            "PLANTGUIDE_REMINDERS_BIND": "tcp://127.0.0.1:\(try FreePort.next())", "PLANTGUIDE_REMINDER_INTERVAL_MS": "50",
            "PLANTGUIDE_ALLOW_LOOPBACK_RECEIVERS": "1",
        ]
        let first = try await ServiceProcess("plantguide-scheduling", endpoint: endpoint, environment: environment)
        let client = try RPCClient(target: endpoint, configuration: .forTests)
        defer { client.close() }
        let user = RPCCallOptions(timeout: TestTime.scaled(.seconds(20)), metadata: ["plantguide-user-id": "u1"])
        // Reminders at the minute just gone (UTC): today's are due at once. Not a fixed 00:00: reminders more than
        // 12 hours late are not sent, so that made the test fail every afternoon.
        let minute = Int(Date().timeIntervalSince1970 / 60) % 1_440
        let notify = minute == 0 ? "00:00" : String(format: "%02d:%02d", (minute - 1) / 60, (minute - 1) % 60)
        _ = try await client.call(Methods.putPreferences, .with { $0.preferences.notifyTime = notify }, options: user)
        _ = try await client.call(Methods.registerWebhook, .with {
            $0.id = "h1"
            $0.url = hook.baseURL.appendingPathComponent("hook").absoluteString
            $0.secret = "0123456789abcdef-secret"
        }, options: user)
        for index in 0..<20 {
            _ = try await client.call(Methods.putSchedule, .with {
                $0.schedule.plantID = "p\(index)"
                $0.schedule.careInfo.watering.frequency = .daily
                $0.schedule.careInfo.fertilizer.frequency = .none
            }, options: user)
        }
        #expect(await hook.wait(timeout: TestTime.scaled(.seconds(30))) { $0.count >= 5 })

        await first.kill()  // mid-delivery: deliveries take 100 ms each
        let second = try await ServiceProcess(
            "plantguide-scheduling", endpoint: endpoint, dataDirectory: first.dataDirectory, environment: environment)
        let ids: @Sendable ([FakeHTTPServer.Request]) -> [String] = { $0.compactMap { $0.headers["x-plantguide-reminder-id"] } }
        let all = await hook.wait(timeout: TestTime.scaled(.seconds(60))) { Set(ids($0)).count >= 20 }

        let received = ids(hook.requests)
        let perID = Dictionary(grouping: received, by: { $0 }).mapValues(\.count)
        #expect(all && perID.count == 20, "every reminder arrived: \(perID.count)")
        #expect(perID.values.allSatisfy { $0 <= 2 }, "only those in flight at the kill may come twice: \(perID.values.sorted())")
        #expect(await second.terminate() == 0)
    }

    @Test("plantguide loadtest: a fixed number of calls, closed and open loop, reported as JSON")
    func loadtest() async throws {
        let service = try await ServiceProcess("plantguide-caredata", endpoint: "tcp://127.0.0.1:\(try FreePort.next())")
        for mode in [["--concurrency", "4"], ["--rate", "500"]] {
            let (status, output) = try await run("plantguide", ["loadtest", service.endpoint, "--method", "/plantguide.health.v1.Health/Check",
                                                          "--requests", "200", "--duration", "30", "--json-output"] + mode)
            let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("{") })
            let result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(status == 0)
            #expect(result["calls"] as? Int == 200 && (result["statuses"] as? [String: Int]) == ["OK": 200], "\(mode): \(line)")
            #expect(((result["latency_ms"] as? [String: Double])?["p99"] ?? 0) > 0)
        }
        await service.terminate()
    }

    @Test("SIGTERM stops a service cleanly with exit status 0")
    func gracefulStop() async throws {
        let service = try await ServiceProcess("plantguide-scheduling", endpoint: "tcp://127.0.0.1:\(try FreePort.next())")
        let status = await service.terminate()
        #expect(status == 0 && service.ending == "exit 0", "ended with \(service.ending)")
    }

    @Test("SIGTERM under load: calls are refused at once, those in flight drain, and the process exits within its grace")
    func stopUnderLoad() async throws {
        let service = try await ServiceProcess(
            "plantguide-scheduling", endpoint: "tcp://127.0.0.1:\(try FreePort.next())", environment: ["PLANTGUIDE_SHUTDOWN_GRACE": "2"])
        let client = try RPCClient(target: service.endpoint, configuration: .forTests)
        defer { client.close() }
        typealias Methods = Plantguide_Scheduling_V1_SchedulingService
        let user = RPCCallOptions(timeout: TestTime.scaled(.seconds(10)), metadata: ["plantguide-user-id": "u1"])
        let load = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for caller in 0..<32 {
                    group.addTask {
                        for index in 0..<10_000 {
                            do {
                                _ = try await client.call(Methods.putSchedule, .with {
                                    $0.schedule.plantID = "p\(caller)-\(index % 20)"
                                    $0.schedule.careInfo = .with { $0.scientificName = "Monstera deliciosa"; $0.watering.frequency = .daily }
                                }, options: user)
                            } catch let error as RPCError where error.code == .unavailable || error.code == .deadlineExceeded {
                                return  // the service is stopping
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        try await Task.sleep(for: .seconds(1))
        let clock = ContinuousClock()
        let started = clock.now
        let status = await service.terminate()
        let elapsed = clock.now - started
        load.cancel()
        _ = try? await load.value
        #expect(status == 0)
        #expect(elapsed < TestTime.scaled(.seconds(4)), "exited \(elapsed) after SIGTERM with a grace of 2 s")
    }

    @Test("every executable explains itself with --help", arguments: [
        "plantguide-identification", "plantguide-caredata", "plantguide-collection", "plantguide-scheduling",
        "plantguide-gateway", "plantguide",
    ])
    func help(executable: String) async throws {
        let (status, output) = try await run(executable, ["--help"])
        #expect(status == 0)
        #expect(output.contains("USAGE"))
        if executable == "plantguide-identification" {
            // Serving is the default subcommand; check-onnx-test is the other.
            #expect(output.contains("serve") && output.contains("check-onnx-test"))
            let (serveStatus, serve) = try await run(executable, ["serve", "--help"])
            #expect(serveStatus == 0 && serve.contains("--bind") && serve.contains("PLANTGUIDE_BIND") && serve.contains("--max-batch"))
        } else if executable == "plantguide-gateway" {
            // Serving is the default subcommand; users and tokens manage the accounts.
            #expect(output.contains("serve") && output.contains("users") && output.contains("tokens") && output.contains("copy-data"))
            let (serveStatus, serve) = try await run(executable, ["serve", "--help"])
            #expect(serveStatus == 0 && serve.contains("--bind") && serve.contains("PLANTGUIDE_COLLECTION"))
            let (addStatus, add) = try await run(executable, ["users", "add", "--help"])
            #expect(addStatus == 0 && add.contains("--token-only") && add.contains("--data"))
        } else if ["plantguide-caredata", "plantguide-collection", "plantguide-scheduling"].contains(executable) {
            // Serving is the default subcommand; copy-data moves a SQLite deployment into PostgreSQL.
            #expect(output.contains("serve") && output.contains("copy-data"))
            let (serveStatus, serve) = try await run(executable, ["serve", "--help"])
            #expect(serveStatus == 0 && serve.contains("--bind") && serve.contains("PLANTGUIDE_BIND") && serve.contains("PLANTGUIDE_DATABASE_URL"))
            let (copyStatus, copy) = try await run(executable, ["copy-data", "--help"])
            #expect(copyStatus == 0 && copy.contains("--from") && copy.contains("PLANTGUIDE_DATABASE_PASSWORD"))
        } else if executable != "plantguide" {
            #expect(output.contains("--bind") && output.contains("PLANTGUIDE_BIND"))
        }
    }

    @Test("identification serves the installed model and refuses a model that is not there")
    func identificationWithModel() async throws {
        let repository = ModelFixtures.modelRepository.path
        let service = try await ServiceProcess(
            "plantguide-identification", endpoint: "tcp://127.0.0.1:\(try FreePort.next())", environment: ["PLANTGUIDE_MODELS": repository])
        let client = try RPCClient(target: service.endpoint, configuration: .forTests)
        defer { client.close() }
        typealias Methods = Plantguide_Identification_V1_IdentificationService
        let status = try await client.call(Methods.getStatus, .init())
        #expect(status.models.map(\.name) == ["plant-cnn"] && status.models.first?.experimental == true)
        let photo = try TestImages.jpeg(TestImages.gradient(width: 800, height: 600))
        let answer = try await client.call(Methods.identify, .with {
            $0.method = .onDevice
            $0.images = [.with { $0.data = photo }]
        })
        #expect(answer.source == .onDevice && answer.model == "plant-cnn@0.1.0" && answer.lowConfidence && !answer.candidates.isEmpty)
        #expect(await service.terminate() == 0)

        let (code, output) = try await run("plantguide-identification", [
            "--bind", "tcp://127.0.0.1:\(try FreePort.next())", "--models", repository, "--model", "resnet-plantnet300k",
        ])
        #expect(code != 0)
        #expect(output.contains("no model 'resnet-plantnet300k'") && output.contains("installed: plant-cnn"))
    }

    @Test("a bad flag value is refused with a message, not a crash")
    func badFlag() async throws {
        let (status, output) = try await run("plantguide-collection", ["--log-level", "loud", "--bind", "tcp://127.0.0.1:1"])
        #expect(status != 0)
        #expect(output.contains("unknown log level 'loud'"))
        let (limitStatus, limitOutput) = try await run("plantguide-identification", ["--max-concurrent-calls", "0", "--bind", "tcp://127.0.0.1:1"])
        #expect(limitStatus != 0)
        #expect(limitOutput.contains("max concurrent calls must be a whole number from 1 to 1000000, not '0'"))
    }

    @Test("an address in use is a clear error")
    func addressInUse() async throws {
        let endpoint = "tcp://127.0.0.1:\(try FreePort.next())"
        let running = try await ServiceProcess("plantguide-gateway", endpoint: endpoint)
        let (status, output) = try await run("plantguide-gateway", ["--bind", endpoint, "--data", running.dataDirectory.path])
        #expect(status != 0)
        #expect(output.contains("Address already in use"))
        await running.terminate()
    }

    // MARK: Helpers

    private func checks(_ client: RPCClient, count: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let reply = try await client.call(Plantguide_Health_V1_Health.check, .init(), options: .init(timeout: TestTime.scaled(.seconds(10))))
                    #expect(reply.status == .serving)
                }
            }
            try await group.waitForAll()
        }
    }

    /// Health checks each process has answered, read from its own metrics.
    private func healthCounts(_ services: [ServiceProcess]) async throws -> [Int] {
        var counts: [Int] = []
        for service in services {
            let client = try RPCClient(target: service.endpoint, configuration: .forTests)
            defer { client.close() }
            let text = try await client.call(Plantguide_Metrics_V1_Metrics.scrape, .init()).text
            let line = text.split(separator: "\n").first {
                $0.hasPrefix(#"plantguide_rpc_server_handled_total{method="/plantguide.health.v1.Health/Check",code="OK"}"#)
            }
            counts.append(line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0)
        }
        return counts
    }

    private func run(_ executable: String, _ arguments: [String]) async throws -> (Int32, String) {
        let outcome = try await ChildProcess.run(BuildProducts.url(of: executable), arguments, mergingStandardError: true)
        return (outcome.status, outcome.output)
    }
}
