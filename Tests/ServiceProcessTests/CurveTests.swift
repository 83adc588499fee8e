import Foundation
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

/// CurveZMQ between the gateway and the services, with real processes: keys from `plantguide keys generate`, a
/// service that lets in only its allowed client keys, and a whole stack running encrypted.
@Suite("CurveZMQ", .serialized, .wholeStack, .cleansUp)
struct CurveTests {
    @Test("keys generate writes a secret readable by its owner only; a curve service refuses unknown and plain clients")
    func allowList() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("curve-\(UUID().uuidString)")
        TestResources.track(folder: folder)
        for name in ["services", "gateway"] {
            let made = try await ChildProcess.run(BuildProducts.url(of: "plantguide"), ["keys", "generate", name, "--directory", folder.path],
                                                  mergingStandardError: true)
            #expect(made.status == 0, "\(made.output)")
        }
        let again = try await ChildProcess.run(BuildProducts.url(of: "plantguide"), ["keys", "generate", "gateway", "--directory", folder.path],
                                               mergingStandardError: true)
        #expect(again.status != 0 && again.output.contains("exists already"))
        let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("gateway.key").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let gateway = try CurveKeyPair(secretKey: try CurveSecurity.key(fromFile: folder.appendingPathComponent("gateway.key").path))
        let servicesPublic = try CurveSecurity.key(fromFile: folder.appendingPathComponent("services.pub").path)
        let gatewayPublic = try CurveSecurity.key(fromFile: folder.appendingPathComponent("gateway.pub").path)
        #expect(gateway.publicKey == gatewayPublic)
        var allowed = RPCClientConfiguration.forTests
        allowed.curve = CurveClientSecurity(keyPair: gateway, serverPublicKey: servicesPublic)
        let collection = try await ServiceProcess(
            "plantguide-collection", endpoint: "tcp://127.0.0.1:\(try FreePort.next())",
            environment: [
                "PLANTGUIDE_CURVE_SECRET_KEY_FILE": folder.appendingPathComponent("services.key").path,
                "PLANTGUIDE_CURVE_ALLOWED_CLIENTS_FILE": folder.appendingPathComponent("gateway.pub").path,
            ], client: allowed)

        var intruder = RPCClientConfiguration.forTests
        intruder.curve = CurveClientSecurity(keyPair: try CurveKeyPair.generate(), serverPublicKey: servicesPublic)
        for (name, configuration) in [("another key", intruder), ("no CurveZMQ", RPCClientConfiguration.forTests)] {
            let client = try RPCClient(target: collection.endpoint, configuration: configuration)
            let refused = await #expect(throws: RPCError.self, "\(name)") {
                _ = try await client.call(Plantguide_Health_V1_Health.check, .init(), options: .init(timeout: .seconds(2), waitForReady: true))
            }
            #expect(refused?.code == .unavailable || refused?.code == .deadlineExceeded, "\(name): \(String(describing: refused))")
            client.close()
        }
        let client = try RPCClient(target: collection.endpoint, configuration: allowed)
        let health = try await client.call(Plantguide_Health_V1_Health.check, .init(), options: .init(timeout: .seconds(5)))
        #expect(health.status == .serving)
        client.close()
        await collection.terminate()
    }

    @Test("a whole stack with CurveZMQ: the gateway saves a plant across the encrypted services, which all serve it")
    func encryptedStack() async throws {
        let services = try CurveKeyPair.generate()
        let gateway = try CurveKeyPair.generate()
        var client = RPCClientConfiguration.forTests
        client.curve = CurveClientSecurity(keyPair: gateway, serverPublicKey: services.publicKey)
        let stack = try await GatewayJourneyTests.Stack(
            gatewayExtra: ["PLANTGUIDE_CURVE_CLIENT_KEY": gateway.secretKey, "PLANTGUIDE_CURVE_SERVER_KEY": services.publicKey],
            serviceExtra: ["PLANTGUIDE_CURVE_SECRET_KEY": services.secretKey, "PLANTGUIDE_CURVE_ALLOWED_CLIENTS": gateway.publicKey],
            serviceClient: client)
        let token = try await stack.token(for: "ana")
        let saved = try await stack.call(Plantguide_Gateway_V1_GatewayService.savePlant, .with {
            $0.plant = .with {
                $0.id = "p1"
                $0.scientificName = "Monstera deliciosa"
            }
        }, token: token)
        let status = try await stack.call(Plantguide_Gateway_V1_GatewayService.getStatus, .init(), token: token)
        #expect(saved.created && !saved.carePending && !saved.tasks.isEmpty)
        #expect(status.services.allSatisfy { $0.serving }, "\(status.services)")
        await stack.stop()
    }
}
