import Foundation
@testable import Gateway
import PlantGuideStorage
import PlantGuideTestSupport
import Synchronization
import Testing

/// Two gateway replicas' claims on pending work in one PostgreSQL: in-process, each with its own claims (as two
/// processes have), on one store.
@Suite("Gateway: pending work claimed across replicas")
struct PendingWorkClaimTests {
    /// Two replicas' claims, with a `lease` of their own, on one PostgreSQL gateway schema.
    private static func replicas(lease: Double = 30) async throws -> (PendingWorkClaims, PendingWorkClaims, PostgresStorage) {
        let database = try await TestPostgres.open(try await TestPostgres.settings(), migrations: PostgresGateway.migrations)
        let records = PostgresGateway(database)
        return (PendingWorkClaims(records: records, lease: lease), PendingWorkClaims(records: records, lease: lease), database)
    }

    /// Tries `claim` every 20 ms for up to `seconds`; whether it succeeded.
    private static func eventually(within seconds: Double, _ claim: () async -> Bool) async throws -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if await claim() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test("a lookup or deletion one replica holds is refused to the other until released")
    func exclusive() async throws {
        let (a, b, database) = try await Self.replicas()
        #expect(await a.claim(userID: "u", plantID: "p1"))
        #expect(await !b.claim(userID: "u", plantID: "p1"))
        #expect(await b.claim(userID: "u", plantID: "p2"), "another plant's lookup is free")
        #expect(await a.claimDeletion(userID: "u", plantID: "p1"), "a deletion is claimed apart from the lookup")
        #expect(await !b.claimDeletion(userID: "u", plantID: "p1"))

        a.release(userID: "u", plantID: "p1")
        a.releaseDeletion(userID: "u", plantID: "p1")

        #expect(try await Self.eventually(within: 2) { await b.claim(userID: "u", plantID: "p1") })
        #expect(try await Self.eventually(within: 2) { await b.claimDeletion(userID: "u", plantID: "p1") })
        await database.close()
    }

    @Test("a replica that died holding a claim holds it only until its lease ends")
    func leaseEnds() async throws {
        let lease = 2.0
        let (dead, alive, database) = try await Self.replicas(lease: lease)
        // Read before the claim is made, so that the lease (from the claim) cannot end sooner than `lease` after it,
        // however slowly a busy machine runs the claims below.
        let started = Date()
        #expect(await dead.claim(userID: "u", plantID: "p1"))
        let takenAtOnce = await alive.claim(userID: "u", plantID: "p1")
        let askedBy = Date().timeIntervalSince(started)

        // A machine stalled for the whole lease between the two claims lets the second one in at once, rightly.
        #expect(!takenAtOnce || askedBy >= lease, "taken \(askedBy) s after the claim, within its lease")
        let taken = try await Self.eventually(within: 5 + lease) { await alive.claim(userID: "u", plantID: "p1") }
        #expect(takenAtOnce || taken)
        #expect(Date().timeIntervalSince(started) >= lease, "taken before the lease ended")
        await database.close()
    }

    @Test("erasing a person's data on one replica waits for the other's claim, keeps its new claims off, and lets them in after")
    func erase() async throws {
        let (sweeper, eraser, database) = try await Self.replicas()
        #expect(await sweeper.claim(userID: "u", plantID: "p1"))
        let begun = Atomic<Bool>(false)
        let erasing = Task {
            await eraser.beginErasing(userID: "u")
            begun.store(true, ordering: .relaxed)
        }
        try await Task.sleep(for: .milliseconds(300))
        let begunEarly = begun.load(ordering: .relaxed)
        #expect(!begunEarly, "the erase waits while the other replica holds a lookup of the person")
        #expect(await !sweeper.claim(userID: "u", plantID: "p2"), "new claims of the person's lookups are kept off")
        #expect(await sweeper.claim(userID: "v", plantID: "p1"), "other people's are not")

        sweeper.release(userID: "u", plantID: "p1")
        let started = Date()
        await erasing.value
        #expect(.seconds(Date().timeIntervalSince(started)) < TestTime.scaled(.seconds(5)), "the erase went on once the claim was released")
        #expect(await !sweeper.claim(userID: "u", plantID: "p1"))
        eraser.endErasing(userID: "u")

        #expect(try await Self.eventually(within: 2) { await sweeper.claim(userID: "u", plantID: "p1") })
        await database.close()
    }
}
