import CareData
import Collection
import Foundation
@testable import Gateway
import Identification
import Logging
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideTestSupport
import Scheduling

/// The gateway over the four services' real handlers, all in this process: each service behind an in-process
/// ``RPCServer`` (its admission, deadlines and status codes as over ZeroMQ, with no socket), SQLite files in a
/// temporary folder, and the gateway's own methods behind one more. No process is started, so a use case, a page
/// or an HTTP route is tested in milliseconds. Servers and the folder go when the test ends (`.cleansUp` suites).
struct InProcessGateway {
    typealias Methods = Plantguide_Gateway_V1_GatewayService

    let gateway: GatewayRPCService
    /// The gateway's RPC methods, in process.
    let client: RPCClient
    /// The web app's origin (``GatewayConfiguration/publicOrigin``), which the session cookie's forgery checks allow.
    static let origin = "http://gateway.test"

    init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-in-process-\(UUID().uuidString)")
        TestResources.track(folder: folder)
        var logger = Logger(label: "in-process-gateway")
        logger.logLevel = .warning
        func data(_ name: String) throws -> URL {
            let url = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
        func serve(_ service: any RPCService) throws -> RPCClient {
            let server = RPCServer(configuration: RPCServerConfiguration(bindEndpoint: "tcp://127.0.0.1:0"), services: [service], logger: logger)
            try server.startInProcess()
            TestResources.track(server)
            return RPCClient(inProcess: server, configuration: .forTests, interceptors: Downstream.interceptors)
        }
        var identification = IdentificationConfiguration(dataDirectory: try data("identification"), plantnet: .init(apiKey: nil))
        identification.offline = true
        let services = Downstream(
            identification: try serve(IdentificationRPCService(identifier: Identifier(configuration: identification))),
            caredata: try serve(CareDataRPCService(configuration: CareDataConfiguration(dataDirectory: try data("caredata"), trefle: .init(token: nil)),
                                                   logger: logger)),
            collection: try serve(CollectionRPCService(configuration: .init(dataDirectory: try data("collection")), logger: logger)),
            scheduling: try serve(SchedulingRPCService(configuration: .init(dataDirectory: try data("scheduling")), logger: logger)))
        var configuration = GatewayConfiguration(dataDirectory: try data("gateway"))
        configuration.publicOrigin = Self.origin
        gateway = try GatewayRPCService(configuration: configuration, records: SQLiteGateway.open(folder: configuration.dataDirectory),
                                        services: services, logger: logger)
        client = try serve(gateway)
    }

    /// A new account's bearer token (the answer of CreateAccount, as the sign-up form gets it).
    func signUp(_ name: String) async throws -> String {
        try await client.call(Methods.createAccount, .with {
            $0.name = name
            $0.password = "basil needs water"
        }, options: .init(timeout: TestTime.scaled(.seconds(30)))).token
    }

    /// Calls one of the gateway's methods with `token`.
    func call<Request, Response>(_ method: RPCMethod<Request, Response>, _ request: Request, token: String) async throws -> Response {
        // As long as the whole-stack tests wait: beside the rest of the suite, a photo's thumbnails and a sign-up's
        // Argon2id share two cores with every other test (a 10 s deadline ran out once in a full run).
        try await client.call(method, request, options: .init(timeout: TestTime.scaled(.seconds(30)), metadata: ["authorization": "Bearer \(token)"]))
    }
}
