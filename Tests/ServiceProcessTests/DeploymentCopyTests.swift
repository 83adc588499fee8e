import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import SwiftProtobuf
import Testing

@Suite("Moving a whole deployment from SQLite to PostgreSQL", .wholeStack, .cleansUp)
struct DeploymentCopyTests {
    typealias Gateway = Plantguide_Gateway_V1_GatewayService
    typealias Stack = GatewayJourneyTests.Stack

    /// A message's JSON with every object's keys sorted (protobuf maps are written in no fixed order).
    private static func canonical(_ message: some SwiftProtobuf.Message) throws -> String {
        let object = try JSONSerialization.jsonObject(with: try message.jsonUTF8Data())
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// What two people see through the gateway: plants (with photos), a plant's details and photo, tasks,
    /// settings and shares, and the owner's collection as the member sees it.
    private static func answers(_ stack: Stack, ana: String, bob: String) async throws -> [String] {
        var answers: [String] = []
        for token in [ana, bob] {
            let plants = try await stack.call(Gateway.listPlants, .init(), token: token)
            answers.append(try canonical(plants))
            for plant in plants.page.plants {
                var details = try await stack.call(Gateway.getPlantDetails, .with { $0.plantID = plant.id }, token: token)
                details.clearCareInfo()  // the catalog's answer, stamped with the time it was asked
                answers.append(try canonical(details))
                for photo in plant.photos {
                    let bytes = try await stack.call(Gateway.getPhoto, .with { $0.sha256 = photo.sha256; $0.size = 256 }, token: token)
                    answers.append("\(photo.sha256): \(bytes.contentSha256) \(bytes.data.count)")
                }
            }
            answers.append(try canonical(try await stack.call(Gateway.listTasks, .init(), token: token)))
            answers.append(try canonical(try await stack.call(Gateway.getSettings, .init(), token: token)))
            answers.append(try canonical(try await stack.call(Gateway.listShares, .init(), token: token)))
        }
        let asAna = ["plantguide-collection-owner": "ana"]
        answers.append(try canonical(try await stack.call(Gateway.listPlants, .init(), token: bob, extra: asAna)))
        return answers
    }

    /// The site passkeys belong to, on both stacks (the tests call over RPC, where no request names one).
    private static let site = ["PLANTGUIDE_PUBLIC_ORIGIN": "http://localhost:7080"]

    @Test("plants, photos, schedules, accounts (passwords, sessions, passkeys) and shares copied with copy-data serve the same answers on PostgreSQL")
    func moveDeployment() async throws {
        let onSQLite = try await Stack(.sqlite, gatewayExtra: Self.site)
        let ana = try await onSQLite.token(for: "ana")
        let bob = try await onSQLite.token(for: "bob")
        let photo = try TestImages.jpeg(TestImages.gradient(width: 320, height: 240))
        for (token, id) in [(ana, "p1"), (ana, "p2"), (bob, "q1")] {
            _ = try await onSQLite.call(Gateway.savePlant, .with {
                $0.plant = .with { $0.id = id; $0.scientificName = "Hibiscus rosa-sinensis"; $0.customName = "Rosie \(id)" }
                if id != "p2" { $0.photo = photo }
            }, token: token)
        }
        _ = try await onSQLite.call(Gateway.shareCollection, .with { $0.memberName = "bob" }, token: ana)
        _ = try await onSQLite.call(Gateway.putSettings, .with {
            $0.settings.notifyTime = "07:30"
            $0.updateMask.paths = ["notify_time"]
            $0.identification.minConfidence = 0.4
        }, token: ana)
        let first = try #require(try await onSQLite.call(Gateway.listTasks, .init(), token: ana).tasks.first)
        _ = try await onSQLite.call(Gateway.completeTasks, .with { $0.taskIds = [first.id] }, token: ana)
        // Cleo signed up herself, with a password and then a passkey.
        let cleo = try await onSQLite.call(Gateway.createAccount, .with { $0.name = "cleo"; $0.password = "basil needs water" }, token: nil)
        let authenticator = TestAuthenticator(relyingPartyID: "localhost", origin: "http://localhost:7080")
        let options = try await onSQLite.call(Gateway.beginPasskeyRegistration, .init(), token: cleo.token)
        _ = try await onSQLite.call(Gateway.createPasskey, .with {
            $0.credential = authenticator.registrationCredential(challenge: Base64URL.decode(options.challenge) ?? Data())
        }, token: cleo.token)
        let before = try await Self.answers(onSQLite, ana: ana, bob: bob)
        await onSQLite.stop()

        var databases: [String: [String: String]] = [:]
        for name in Stack.statefulProcesses {
            let database = try await TestPostgres.environment()
            databases[name] = database
            let folder = name == "gateway" ? onSQLite.gateway.dataDirectory : onSQLite.services[name]!.dataDirectory
            let copy = try await TestPostgres.copyData(name, from: folder, into: database)
            #expect(copy.status == 0 && copy.output.contains("done:"), "\(name): \(copy.output)")
        }

        // New data folders: everything the stack answers now comes from PostgreSQL.
        let onPostgres = try await Stack(.postgres, databases: databases, gatewayExtra: Self.site)
        let after = try await Self.answers(onPostgres, ana: ana, bob: bob)
        #expect(after.count == before.count)
        for (old, new) in zip(before, after) { #expect(old == new) }

        // Cleo's password, session (still one that expires) and passkey came along.
        let signedIn = try await onPostgres.call(Gateway.createSession, .with { $0.name = "cleo"; $0.password = "basil needs water" }, token: nil)
        #expect(signedIn.userID == cleo.userID)
        let sessions = try await onPostgres.call(Gateway.listSessions, .init(), token: cleo.token).sessions
        #expect(sessions.first { $0.current }?.hasExpiresAt == true, "\(sessions)")
        let challenge = try #require(Base64URL.decode(try await onPostgres.call(Gateway.beginPasskeySignIn, .init(), token: nil).challenge))
        let byPasskey = try await onPostgres.call(Gateway.createPasskeySession, .with {
            $0.credential = authenticator.signInCredential(challenge: challenge, counter: 2)
        }, token: nil)
        #expect(byPasskey.userID == cleo.userID)
        await onPostgres.stop()
    }
}
