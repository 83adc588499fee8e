import Foundation
import Logging
import PlantGuideRPC
@testable import PlantGuideStorage
import PlantGuideTestSupport
import Synchronization
import Testing

@Suite("PostgreSQL storage")
struct PostgresStorageTests {
    @Test("a pool saturated by calls is no outage: the probe has its own connection, every call is answered, health stays up")
    func saturatedPoolIsNotAnOutage() async throws {
        var settings = try await TestPostgres.settings()
        settings.poolSize = 2
        let storage = try await TestPostgres.open(settings, migrations: [])
        let sawUnreachable = Atomic<Bool>(false)
        let watching = Task {
            while !Task.isCancelled {
                if !storage.isReachable { sawUnreachable.store(true, ordering: .relaxed) }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }

        // 150 calls of 20 ms each through 2 connections: the last waits about 1.5 s for its turn.
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<150 {
                group.addTask { try await storage.read { session in try await session.all("SELECT 1 FROM pg_sleep(0.02)", as: Int.self).count } }
            }
            return try await group.reduce(0, +)
        }
        watching.cancel()
        await storage.close()
        let unreachableSeen = sawUnreachable.load(ordering: .relaxed)

        #expect(answered == 150)
        #expect(!unreachableSeen, "the store was never taken for unreachable")
    }

    @Test("a command's store waits out a server that answers nothing for as long as a service's store takes to give it up")
    func commandsArePatient() async throws {
        let server = try await TestPostgres.dedicated()
        func settings() throws -> PostgresSettings {
            try PostgresSettings(url: server.server.url, password: server.server.password, poolSize: 2, schema: TestPostgres.uniqueSchema())
        }
        let command = try await PostgresStorage.openForCommand(try settings(), migrations: [], logger: Logger(label: "command"))
        let service = try await PostgresStorage.open(try settings(), migrations: [], logger: Logger(label: "service"))

        try await server.freeze()
        let commandCall = Task { try await command.read { session in try await session.all("SELECT 1", as: Int.self) } }
        let serviceCall = Task { try await service.read { session in try await session.all("SELECT 1", as: Int.self) } }
        // Frozen until the service's store has taken the server for gone (about 2 s, given 20 s on a busy machine)
        // and its call has failed (at most its 5 s); the command's store would give up only after 30 s.
        let clock = ContinuousClock()
        let giveUp = clock.now + .seconds(20)
        while service.isReachable && clock.now < giveUp { try await Task.sleep(for: .milliseconds(50)) }
        let serviceSawOutage = !service.isReachable
        let serviceOutcome = await serviceCall.result
        try await server.thaw()

        #expect(try await commandCall.value == [1])
        #expect(command.isReachable)
        #expect(serviceSawOutage)
        #expect(throws: StorageError.unavailable) { try serviceOutcome.get() }
        await command.close()
        await service.close()
    }

    @Test("the server's silence is measured without a trap when an answer is noted after the clock was read")
    func silenceNeverNegative() {
        #expect(PostgresReachability.silence(since: .nanoseconds(1_000), now: .nanoseconds(3_500)) == .nanoseconds(2_500))
        // Another call noted an answer between the probe's reading of the clock and its reading of the last answer.
        #expect(PostgresReachability.silence(since: .nanoseconds(3_501), now: .nanoseconds(3_500)) == .zero)
        #expect(PostgresReachability.silence(since: .seconds(Int64.max), now: .zero) == .zero)
    }

    @Test("a password in the URL is refused, naming where it belongs; the URL in messages hides it")
    func settingsFromURL() throws {
        let parsed = try PostgresSettings(url: "postgres://app@db.internal:6543/plants?sslmode=require", password: "s3cret", poolSize: 5, schema: "caredata")
        #expect(parsed.host == "db.internal" && parsed.port == 6543 && parsed.database == "plants" && parsed.tls == .require)
        #expect(!parsed.description.contains("s3cret"))
        let withPassword = #expect(throws: (any Error).self) {
            try PostgresSettings(url: "postgres://app:s3cret@db/plants", password: nil, poolSize: 5, schema: "caredata")
        }
        #expect(String(describing: withPassword!).contains("PLANTGUIDE_DATABASE_PASSWORD") && !String(describing: withPassword!).contains("s3cret"))
        #expect(throws: (any Error).self) { try PostgresSettings(url: "mysql://app@db/plants", password: nil, poolSize: 5, schema: "caredata") }
        #expect(throws: (any Error).self) { try PostgresSettings(url: "postgres://app@db/plants", password: nil, poolSize: 0, schema: "caredata") }
        #expect(throws: (any Error).self) { try PostgresSettings(url: "postgres://app@db/plants", password: nil, poolSize: 5, schema: "Robert'); DROP") }
    }
}
