import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

/// Shared households through the gateway, all five executables as real processes: who may read and write a
/// collection shared with them, and what a share never opens.
@Suite("Gateway households", .serialized, .wholeStack, .cleansUp)
struct GatewayHouseholdTests {
    typealias Gateway = Plantguide_Gateway_V1_GatewayService
    typealias Stack = GatewayJourneyTests.Stack

    private static let plant = Plantguide_Collection_V1_Plant.with {
        $0.id = "p1"
        $0.scientificName = "Hibiscus rosa-sinensis"
        $0.customName = "Rosie"
    }

    @Test("a read-write member ticks off the owner's tasks; a read-only member reads but cannot write; no share, no access", arguments: TestBackend.allCases)
    func sharing(backend: TestBackend) async throws {
        let stack = try await Stack(backend)
        let ana = try await stack.token(for: "ana")
        let bob = try await stack.token(for: "bob")
        let cara = try await stack.token(for: "cara")
        let dan = try await stack.token(for: "dan")
        _ = try await stack.call(Gateway.savePlant, .with { $0.plant = Self.plant }, token: ana)
        let asAna = ["plantguide-collection-owner": "ana"]

        let toBob = try await stack.call(Gateway.shareCollection, .with { $0.memberName = "bob"; $0.access = .readWrite }, token: ana)
        let toCara = try await stack.call(Gateway.shareCollection, .with { $0.memberName = "cara" }, token: ana)
        #expect(toBob.share.access == .readWrite && toCara.share.access == .readOnly, "unset access means read-only")
        let anasShares = try await stack.call(Gateway.listShares, .init(), token: ana)
        let bobsShares = try await stack.call(Gateway.listShares, .init(), token: bob)
        #expect(anasShares.given.map(\.memberName) == ["bob", "cara"] && anasShares.received.isEmpty)
        #expect(bobsShares.received.map(\.ownerName) == ["ana"] && bobsShares.given.isEmpty)

        // Cara reads Ana's plant and tasks, and is refused every write.
        let carasView = try await stack.call(Gateway.listPlants, .init(), token: cara, extra: asAna)
        let carasOwn = try await stack.call(Gateway.listPlants, .init(), token: cara)
        let detail = try await stack.call(Gateway.getPlantDetails, .with { $0.plantID = "p1" }, token: cara, extra: asAna)
        let anasTasks = try await stack.call(Gateway.listTasks, .init(), token: cara, extra: asAna)
        #expect(carasView.page.plants.map(\.id) == ["p1"] && carasOwn.page.plants.isEmpty && detail.plant.customName == "Rosie")
        let task = try #require(anasTasks.tasks.first)
        let caraWrites = [
            await #expect(throws: RPCError.self) {
                _ = try await stack.call(Gateway.completeTasks, .with { $0.taskIds = [task.id] }, token: cara, extra: asAna)
            },
            await #expect(throws: RPCError.self) {
                _ = try await stack.call(Gateway.setFavorite, .with { $0.plantID = "p1"; $0.favorite = true }, token: cara, extra: asAna)
            },
            await #expect(throws: RPCError.self) {
                _ = try await stack.call(Gateway.deletePlant, .with { $0.plantID = "p1" }, token: cara, extra: asAna)
            },
        ]
        #expect(caraWrites.allSatisfy { $0?.code == .permissionDenied })

        // Bob, read-write, completes one of Ana's tasks and snoozes another; Ana sees both.
        let done = try await stack.call(Gateway.completeTasks, .with { $0.taskIds = [task.id] }, token: bob, extra: asAna)
        #expect(done.completed.map(\.id) == [task.id])
        let second = try #require(anasTasks.tasks.dropFirst().first)
        let snoozed = try await stack.call(Gateway.snoozeTask, .with { $0.taskID = second.id; $0.hours = 3 }, token: bob, extra: asAna)
        #expect(snoozed.task.state == .snoozed)
        let anasNow = try await stack.call(Gateway.listTasks, .with { $0.view = .open }, token: ana)
        #expect(!anasNow.tasks.contains { $0.id == task.id } && anasNow.tasks.first { $0.id == second.id }?.state == .snoozed)

        // A share opens the collection, never the person: settings, export and sharing stay each one's own.
        let bobsOwnOnly = [
            await #expect(throws: RPCError.self) { _ = try await stack.call(Gateway.getSettings, .init(), token: bob, extra: asAna) },
            await #expect(throws: RPCError.self) { _ = try await stack.call(Gateway.exportCollection, .init(), token: bob, extra: asAna) },
            await #expect(throws: RPCError.self) {
                _ = try await stack.call(Gateway.shareCollection, .with { $0.memberName = "dan" }, token: bob, extra: asAna)
            },
        ]
        #expect(bobsOwnOnly.allSatisfy { $0?.code == .permissionDenied })

        // Dan has no share; a made-up owner is the same refusal, so names are not probed.
        let dansRead = await #expect(throws: RPCError.self) { _ = try await stack.call(Gateway.listPlants, .init(), token: dan, extra: asAna) }
        let nobody = await #expect(throws: RPCError.self) {
            _ = try await stack.call(Gateway.listPlants, .init(), token: dan, extra: ["plantguide-collection-owner": "nobody"])
        }
        #expect(dansRead?.code == .permissionDenied && nobody?.code == .permissionDenied && dansRead?.message.contains("ana") == true)

        // Revoked, Bob is refused from the next call on.
        let revoked = try await stack.call(Gateway.revokeShare, .with { $0.memberName = "bob" }, token: ana)
        let revokedAgain = try await stack.call(Gateway.revokeShare, .with { $0.memberName = "bob" }, token: ana)
        let afterRevoke = await #expect(throws: RPCError.self) { _ = try await stack.call(Gateway.listPlants, .init(), token: bob, extra: asAna) }
        #expect(revoked.revoked && !revokedAgain.revoked && afterRevoke?.code == .permissionDenied)

        // Bad shares: an unknown user, oneself, no name.
        let unknown = await #expect(throws: RPCError.self) {
            _ = try await stack.call(Gateway.shareCollection, .with { $0.memberName = "zoe" }, token: ana)
        }
        let oneself = await #expect(throws: RPCError.self) {
            _ = try await stack.call(Gateway.shareCollection, .with { $0.memberName = "ana" }, token: ana)
        }
        let noName = await #expect(throws: RPCError.self) { _ = try await stack.call(Gateway.shareCollection, .init(), token: ana) }
        #expect(unknown?.code == .notFound)
        #expect(oneself?.details.fieldViolations.map(\.field) == ["member_name"] && noName?.details.fieldViolations.map(\.field) == ["member_name"])
        await stack.stop()
    }
}
