import Foundation
@testable import Gateway
import Hummingbird
import HummingbirdTesting
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Testing

/// The gateway's use cases, web app and HTTP front over the services' real handlers, in this process
/// (``InProcessGateway``): no process is started. The whole-stack tests (ServiceProcessTests) keep proving the same
/// over ZeroMQ between processes; these say quickly which layer broke.
@Suite("Gateway in process: use cases, pages and the HTTP front over the services' handlers", .cleansUp)
struct GatewayInProcessTests {
    typealias Methods = Plantguide_Gateway_V1_GatewayService


    private static func fig(_ gateway: InProcessGateway, token: String, photo: Data? = nil) async throws -> Plantguide_Gateway_V1_SavePlantResponse {
        try await gateway.call(Methods.savePlant, .with {
            $0.plant = .with { $0.id = "fig"; $0.scientificName = "Ficus lyrata"; $0.customName = "Fig" }
            if let photo { $0.photo = photo }
        }, token: token)
    }

    @Test("sign up, save a plant with a photo: stored with its photo, its care from the catalog and its tasks planned")
    func savePlantWithPhoto() async throws {
        let gateway = try InProcessGateway()
        let token = try await gateway.signUp("pia")
        let saved = try await Self.fig(gateway, token: token, photo: TestImages.jpeg(TestImages.gradient(width: 64, height: 48)))
        #expect(saved.created)
        let details = try await gateway.call(Methods.getPlantDetails, .with { $0.plantID = "fig" }, token: token)
        #expect(details.plant.customName == "Fig" && details.plant.photos.count == 1, "\(details.plant)")
        #expect(details.careInfo.scientificName == "Ficus lyrata" && !details.upcomingTasks.isEmpty, "\(details)")
        #expect(details.unavailable.isEmpty)
    }

    @Test("Today's Done and Undo: the task leaves the due list and comes back")
    func doneAndUndo() async throws {
        let gateway = try InProcessGateway()
        let token = try await gateway.signUp("pia")
        _ = try await Self.fig(gateway, token: token)
        func due() async throws -> [String] {
            try await gateway.call(Methods.listTasks, .with { $0.view = .due }, token: token).tasks.map(\.id)
        }
        let watering = try #require(try await due().first { $0.hasPrefix("fig|watering|") }, "the fig's watering is due today")
        let completed = try await gateway.call(Methods.completeTasks, .with { $0.taskIds = [watering] }, token: token)
        #expect(completed.completed.map(\.id) == [watering] && completed.completed.first?.state == .completed)
        #expect(try await !due().contains(watering))
        _ = try await gateway.call(Methods.reopenTask, .with { $0.taskID = watering }, token: token)
        #expect(try await due().contains(watering))
    }

    @Test("Settings refuse a time that is not one, naming the field; another user's plant is not found")
    func refusals() async throws {
        let gateway = try InProcessGateway()
        let pia = try await gateway.signUp("pia")
        let noor = try await gateway.signUp("noor")
        _ = try await Self.fig(gateway, token: pia)
        do {
            _ = try await gateway.call(Methods.putSettings, .with {
                $0.settings = .with { $0.notifyTime = "25:99" }
                $0.updateMask = .with { $0.paths = ["notify_time"] }
            }, token: pia)
            Issue.record("a notify time of 25:99 was taken")
        } catch let error as RPCError {
            #expect(error.code == .invalidArgument && error.details.fieldViolations.first?.field.hasSuffix("notify_time") == true, "\(error)")
        }
        #expect(await rpcErrorCode { _ = try await gateway.call(Methods.getPlantDetails, .with { $0.plantID = "fig" }, token: noor) } == .notFound)
        #expect(try await gateway.call(Methods.listPlants, .init(), token: noor).page.plants.isEmpty)
        #expect(await rpcErrorCode { _ = try await gateway.call(Methods.listPlants, .init(), token: "pg_not-a-token") } == .unauthenticated)
    }

    @Test("the HTTP front: a sign-up form sets the session cookie; with it, Today lists the plant; a change from another site's page is refused")
    func httpFront() async throws {
        let gateway = try InProcessGateway()
        let application = try gateway.gateway.httpApplication(logger: .init(label: "in-process-http"))
        try await application.test(.router) { client in
            let signedUp = try await client.execute(
                uri: "/signup", method: .post,
                headers: [.origin: InProcessGateway.origin, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "name=pia&password=basil+needs+water"))
            #expect(signedUp.status == .seeOther && signedUp.headers[.location] == "/today", "\(signedUp.status)")
            let cookie = String(try #require(signedUp.headers[.setCookie]).prefix { $0 != ";" })
            #expect(cookie.hasPrefix("plantguide_session=pg_"), "\(cookie)")

            let plant = ByteBuffer(string: #"{"plant": {"scientificName": "Ficus lyrata", "customName": "Fig"}}"#)
            let crossSite = try await client.execute(uri: "/v1/plants/fig", method: .put, headers: [
                .cookie: cookie, .origin: "https://evil.example", .contentType: "application/json",
            ], body: plant)
            #expect(crossSite.status == .forbidden && String(buffer: crossSite.body).contains("CROSS_SITE_REQUEST"), "\(String(buffer: crossSite.body))")
            let sameSite = try await client.execute(uri: "/v1/plants/fig", method: .put, headers: [
                .cookie: cookie, .origin: InProcessGateway.origin, .contentType: "application/json",
            ], body: plant)
            #expect(sameSite.status == .ok, "\(String(buffer: sameSite.body))")

            let today = try await client.execute(uri: "/today", method: .get, headers: [.cookie: cookie])
            #expect(today.status == .ok && String(buffer: today.body).contains("Fig"))
            let signedOut = try await client.execute(uri: "/today", method: .get)
            #expect(signedOut.status == .seeOther && signedOut.headers[.location] == "/signin")
        }
    }
}
