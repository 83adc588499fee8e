import Foundation
import Hummingbird
import Logging
import PlantGuideProtos
import PlantGuideRPC
import ServiceLifecycle

/// The RPC methods of plantguide-gateway (see `Protos/plantguide/gateway/v1/gateway.proto`): every call is
/// authenticated by its bearer token, then runs a use case across the services as that user.
public final class GatewayRPCService: RPCService {
    public let accounts: AccountStore
    public let services: Downstream
    let pending: PendingWork
    let identificationSettings: IdentificationSettingsStore
    private let limiter: CallerRateLimiter
    private let logger: Logger

    /// Opens the gateway's database in the data folder and connects to the services.
    /// - Throws: when the database cannot be opened or a service target is malformed.
    public init(configuration: GatewayConfiguration, logger: Logger) throws {
        let database = try GatewayDatabase.open(path: configuration.dataDirectory.appendingPathComponent("gateway.sqlite").path)
        accounts = AccountStore(writer: database)
        pending = PendingWork(writer: database)
        identificationSettings = IdentificationSettingsStore(writer: database)
        services = try Downstream(configuration: configuration)
        limiter = CallerRateLimiter(perSecond: configuration.callsPerSecond)
        self.logger = logger
    }

    /// The HTTP/JSON front on `host`:`port`, serving the methods that have HTTP bindings through this service's
    /// handlers, with /healthz, /readyz, /metrics, /openapi.json and the calendar feeds. A Service: run it beside
    /// the RPC server.
    public func httpFront(host: String, port: Int, maxBodyBytes: Int, metrics: @escaping @Sendable () -> String,
                          logger: Logger) -> any Service {
        var router = RPCRouter()
        router.register(self)
        let services = self.services
        let accounts = self.accounts
        let responder = GatewayHTTPResponder(
            router: router, methods: Plantguide_Gateway_V1_GatewayService.methods, maxBodyBytes: maxBodyBytes, metrics: metrics,
            readiness: { await Readiness.check(services) },
            calendar: { secret in
                guard let userID = try await accounts.owner(ofCalendarSecret: secret) else { return nil }
                let caller = Caller(id: userID, deadline: .now + .seconds(10), traceID: nil)
                return try await services.call(services.scheduling, Plantguide_Scheduling_V1_SchedulingService.getCalendar, .init(), as: caller).ics
            })
        return Application(responder: responder, configuration: .init(address: .hostname(host, port: port), serverName: "plantguide-gateway"),
                           logger: logger)
    }

    /// The background work that finishes interrupted deletions and care lookups.
    public var sweeper: PendingWorkSweeper { PendingWorkSweeper(services: services, pending: pending, logger: logger) }

    public func registerMethods(with router: inout RPCRouter) {
        typealias Methods = Plantguide_Gateway_V1_GatewayService
        let plants = PlantUseCases(services: services, pending: pending)
        let tasks = TaskUseCases(services: services)
        let identifyAndStatus = IdentifyAndStatus(services: services, identificationSettings: identificationSettings)
        let accountData = AccountDataUseCases(services: services, pending: pending, identificationSettings: identificationSettings)
        let photos = PhotoUseCases(services: services)
        let accounts = self.accounts
        let limiter = self.limiter

        func authenticated<Request, Response>(
            _ method: RPCMethod<Request, Response>, _ body: @escaping @Sendable (Request, Caller) async throws -> Response
        ) {
            router.register(method) { request, context in
                try await body(request, try await Self.caller(context, accounts: accounts, limiter: limiter))
            }
        }
        authenticated(Methods.identifyPlant) { try await identifyAndStatus.identify($0, as: $1) }
        authenticated(Methods.savePlant) { try await plants.save($0, as: $1) }
        authenticated(Methods.getPlantDetails) { try await plants.details($0.plantID, as: $1) }
        authenticated(Methods.listPlants) { try await plants.list($0, as: $1) }
        authenticated(Methods.updatePlant) { try await plants.update($0, as: $1) }
        authenticated(Methods.setFavorite) { try await plants.setFavorite($0, as: $1) }
        authenticated(Methods.getCareInfo) { try await plants.care($0, as: $1) }
        authenticated(Methods.deletePlant) { try await plants.delete($0.plantID, as: $1) }
        authenticated(Methods.addPlantPhoto) { try await photos.add($0, as: $1) }
        authenticated(Methods.getPhoto) { try await photos.get($0, as: $1) }
        authenticated(Methods.deletePlantPhoto) { try await photos.delete($0, as: $1) }
        authenticated(Methods.listTasks) { try await tasks.list($0, as: $1) }
        authenticated(Methods.completeTasks) { try await tasks.complete($0, as: $1) }
        authenticated(Methods.getStatus) { await identifyAndStatus.status(as: $1) }
        authenticated(Methods.createCalendarLink) { _, caller in
            let path = try await accounts.newCalendarLink(userID: caller.id)
            return .with { $0.path = path }
        }
        authenticated(Methods.revokeCalendarLink) { _, caller in
            let revoked = try await accounts.revokeCalendarLink(userID: caller.id)
            return .with { $0.revoked = revoked }
        }
        authenticated(Methods.getSettings) { try await accountData.settings(as: $1) }
        authenticated(Methods.putSettings) { try await accountData.putSettings($0, as: $1) }
        authenticated(Methods.exportCollection) { try await accountData.export(as: $1) }
        authenticated(Methods.importCollection) { try await accountData.importArchive($0, as: $1) }
        authenticated(Methods.deleteAllData) { try await accountData.deleteAll(as: $1) }
    }

    /// The user of the call's bearer token, within the token's rate. A "plantguide-user-id" the caller sent is
    /// never looked at.
    /// - Throws: UNAUTHENTICATED for a missing, malformed, unknown or revoked token; RESOURCE_EXHAUSTED beyond
    ///   the token's rate.
    static func caller(_ context: RPCServerContext, accounts: AccountStore, limiter: CallerRateLimiter) async throws -> Caller {
        guard let header = context.metadata["authorization"] else {
            throw RPCError(.unauthenticated, "send \"authorization: Bearer <token>\"; plantguide-gateway users add NAME makes a token")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer",
              let owner = try await accounts.owner(ofToken: String(parts[1]).trimmingCharacters(in: .whitespaces)) else {
            throw RPCError(.unauthenticated, "the bearer token is unknown or revoked")
        }
        try limiter.admit(tokenID: owner.tokenID)
        return Caller(id: owner.userID, deadline: context.deadline, traceID: context.metadata[RPCServerContext.traceIDKey])
    }
}
