import Foundation
import Hummingbird
import Logging
import PlantGuideProtos
import PlantGuideRPC
import PlantGuideStorage
import ServiceLifecycle

/// The RPC methods of plantguide-gateway (see `Protos/plantguide/gateway/v1/gateway.proto`): every call is
/// authenticated by its bearer token, then runs a use case across the services as that user.
public final class GatewayRPCService: RPCService {
    public let accounts: AccountStore
    public let services: Downstream
    let pending: PendingWork
    let identificationSettings: IdentificationSettingsStore
    let households: HouseholdStore
    let authenticator: CallerAuthenticator
    let passwords: PasswordAccounts
    let passkeys: PasskeyAccounts
    /// The scheduling service's reminders, for the HTTP front's live streams. Run it beside the HTTP front, after
    /// it in a service group, so that it ends the streams before the front drains.
    public let reminders: ReminderRelay
    private let logger: Logger

    private let database: PostgresStorage?
    private let records: any GatewayRecords
    private let browser: BrowserSession
    private let clientAddresses: ClientAddresses
    private let signUpPolicy: SignUpPolicy
    /// Every method as a typed function: served over RPC, called in process by the web app.
    private let methods: GatewayMethods

    /// Opens the gateway's SQLite database in the data folder and connects to the services.
    /// - Throws: when the database cannot be opened or a service target is malformed.
    public convenience init(configuration: GatewayConfiguration, logger: Logger) throws {
        try self.init(configuration: configuration, records: try SQLiteGateway.open(folder: configuration.dataDirectory), logger: logger)
    }

    /// Keeps the gateway's state in `records` and calls the services through `services` (by default, clients of the
    /// configuration's targets); `database`, when they are in PostgreSQL, tells health whether it answers.
    /// - Throws: when a service target is malformed.
    public init(configuration: GatewayConfiguration, records: any GatewayRecords, services: Downstream? = nil, database: PostgresStorage? = nil,
                logger: Logger) throws {
        self.database = database
        self.records = records
        accounts = AccountStore(records: records)
        pending = PendingWork(records: records)
        identificationSettings = IdentificationSettingsStore(records: records)
        households = HouseholdStore(records: records)
        self.services = try services ?? Downstream(configuration: configuration)
        reminders = try ReminderRelay(publishers: RPCTarget(parsing: configuration.reminders), curve: configuration.curve)
        authenticator = CallerAuthenticator(tokens: TokenCache(accounts: accounts), households: households,
                                            limiter: CallerRateLimiter(perSecond: configuration.callsPerSecond))
        passwords = PasswordAccounts(accounts: accounts, records: records, hasher: PasswordHasher(), policy: configuration.signUp)
        passkeys = PasskeyAccounts(accounts: accounts, records: records, publicOrigin: configuration.publicOrigin)
        browser = BrowserSession(publicOrigin: configuration.publicOrigin, maxAge: Int(passwords.lifetime.absolute))
        clientAddresses = configuration.clientAddresses
        signUpPolicy = configuration.signUp
        self.logger = logger
        // The password blocklist is read now, not by the first sign-up's handler on the RPC I/O thread.
        _ = PasswordPolicy.common.count
        methods = Self.methods(services: self.services, pending: pending, identificationSettings: identificationSettings, accounts: accounts,
                               households: households, passwords: passwords, passkeys: passkeys, authenticator: authenticator)
    }

    /// The HTTP/JSON front on `host`:`port`, serving the methods that have HTTP bindings through this service's
    /// handlers, with /healthz, /readyz, /metrics, /openapi.json, the calendar feeds and the reminder stream. A Service: run it beside
    /// the RPC server.
    /// - Throws: when the web app's pages or files are missing from the build.
    public func httpFront(host: String, port: Int, maxBodyBytes: Int, metrics: @escaping @Sendable () -> String,
                          logger: Logger) throws -> any Service {
        try httpApplication(host: host, port: port, maxBodyBytes: maxBodyBytes, metrics: metrics, logger: logger)
    }

    /// ``httpFront(host:port:maxBodyBytes:metrics:logger:)`` as the Hummingbird application it is, which tests
    /// drive in process (HummingbirdTesting) without a socket.
    func httpApplication(host: String = "127.0.0.1", port: Int = 0, maxBodyBytes: Int = 16 << 20, metrics: @escaping @Sendable () -> String = { "" },
                         logger: Logger) throws -> Application<RouterResponder<GatewayRequestContext>> {
        var router = RPCRouter()
        router.register(self)
        let services = self.services
        let accounts = self.accounts
        let authenticator = self.authenticator
        let parts = GatewayRouter.Parts(
            api: JSONAPIRoutes(router: router, methods: Plantguide_Gateway_V1_GatewayService.methods, browser: browser,
                               handlerExecutor: services.collection.executor),
            probes: ProbeRoutes(readiness: { await Readiness.check(services) }, metricsText: metrics),
            calendar: CalendarFeedRoutes { secret, ifVersion in
                guard let userID = try await accounts.owner(ofCalendarSecret: secret) else { return nil }
                let caller = Caller(id: userID, deadline: .now + .seconds(10), traceID: nil)
                let feed = try await services.call(services.scheduling, Plantguide_Scheduling_V1_SchedulingService.getCalendar,
                                                   .with { $0.ifVersion = ifVersion }, as: caller)
                return CalendarFeedAnswer(ics: feed.notModified ? nil : feed.ics, version: feed.version)
            },
            reminderStream: ReminderStream(relay: reminders) { authorization, owner in
                try await authenticator.caller(authorization: authorization, collectionOwner: owner, scope: .read,
                                               deadline: .now + .seconds(10), traceID: nil)
            },
            web: try WebApp(methods: methods, browser: browser, signUp: signUpPolicy, handlerExecutor: services.collection.executor,
                            maxUploadBytes: maxBodyBytes),
            browser: browser, clientAddresses: clientAddresses, maxBodyBytes: maxBodyBytes)
        return Application(router: GatewayRouter.router(parts, logger: logger),
                           configuration: .init(address: .hostname(host, port: port), serverName: "plantguide-gateway"), logger: logger)
    }

    /// NOT_SERVING while the gateway's PostgreSQL does not answer.
    public var isReady: Bool { database?.isReachable ?? true }

    /// The background work that finishes interrupted deletions and care lookups.
    public var sweeper: PendingWorkSweeper { PendingWorkSweeper(services: services, pending: pending, logger: logger) }

    /// The background work that shares the tokens' rate limits with the other replicas (nothing on SQLite).
    public var rateLimitExchange: RateLimitExchange { RateLimitExchange(limiter: authenticator.limiter, records: records, logger: logger) }

    public func registerMethods(with router: inout RPCRouter) {
        methods.register(with: &router)
    }

    /// The gateway's handlers only await (the services, its database's queue); a password's Argon2id, the one heavy
    /// step, runs on a pool of its own (``PasswordHasher``).
    public var handlerExecution: RPCHandlerExecution? { .ioThread }

    /// The caller of every method, made once from the call's token before the method runs.
    public var interceptors: [any RPCServerInterceptor] { [methods.interceptor] }

    /// Every method of the gateway, on its use cases and account stores.
    private static func methods(
        services: Downstream, pending: PendingWork, identificationSettings: IdentificationSettingsStore, accounts: AccountStore,
        households: HouseholdStore, passwords: PasswordAccounts, passkeys: PasskeyAccounts, authenticator: CallerAuthenticator
    ) -> GatewayMethods {
        typealias Methods = Plantguide_Gateway_V1_GatewayService
        let timeZones = ReminderTimeZones()
        let plants = PlantUseCases(services: services, pending: pending, timeZones: timeZones)
        let tasks = TaskUseCases(services: services)
        let identifyAndStatus = IdentifyAndStatus(services: services, identificationSettings: identificationSettings)
        let accountData = AccountDataUseCases(services: services, pending: pending, identificationSettings: identificationSettings,
                                              timeZones: timeZones)
        let photos = PhotoUseCases(services: services)
        var methods = GatewayMethods(authenticator: authenticator)
        // The methods that need no token: they are how a person gets one.
        methods.anyone(Methods.createAccount) { request in
            let issued = try await passwords.signUp(name: request.name, password: request.password, invitation: request.invitation)
            return .with { $0.userID = issued.userID; $0.token = issued.secret }
        }
        methods.anyone(Methods.createSession) { request in
            let issued = try await passwords.signIn(name: request.name, password: request.password, clientAddress: HTTPRequestFacts.current?.clientAddress)
            return .with { $0.userID = issued.userID; $0.token = issued.secret }
        }
        methods.anyone(Methods.beginPasskeySignIn) { _ in try await passkeys.beginSignIn() }
        methods.anyone(Methods.createPasskeySession) { request in
            let issued = try await passkeys.signIn(request.credential)
            return .with { $0.userID = issued.userID; $0.token = issued.secret }
        }
        methods.authenticated(Methods.beginPasskeyRegistration, .ownOnly) { _, caller in try await passkeys.beginRegistration(caller: caller) }
        methods.authenticated(Methods.createPasskey, .ownOnly) { request, caller in
            let passkey = try await passkeys.register(request, caller: caller)
            return .with { $0.passkey = passkey }
        }
        methods.authenticated(Methods.listPasskeys, .ownOnly) { _, caller in
            let list = try await passkeys.passkeys(of: caller)
            return .with { $0.passkeys = list }
        }
        methods.authenticated(Methods.deletePasskey, .ownOnly) { request, caller in
            let deleted = try await passkeys.delete(request.passkeyID, of: caller)
            return .with { $0.deleted = deleted }
        }
        methods.authenticated(Methods.listSessions, .ownOnly) { _, caller in
            let sessions = try await passwords.sessions(of: caller)
            return .with { $0.sessions = sessions }
        }
        methods.authenticated(Methods.deleteSession, .ownOnly) { request, caller in
            let deleted = try await passwords.deleteSession(request.sessionID, of: caller)
            return .with { $0.deleted = deleted }
        }
        methods.authenticated(Methods.signOutOtherSessions, .ownOnly) { _, caller in
            let count = try await passwords.signOutOthers(of: caller)
            return .with { $0.signedOut = UInt32(count) }
        }
        methods.authenticated(Methods.changePassword, .ownOnly) { request, caller in
            let count = try await passwords.changePassword(current: request.currentPassword, new: request.newPassword, caller: caller)
            return .with { $0.signedOut = UInt32(count) }
        }
        methods.authenticated(Methods.identifyPlant, .ownOnly) { try await identifyAndStatus.identify($0, as: $1) }
        methods.authenticated(Methods.savePlant, .write) { try await plants.save($0, as: $1) }
        methods.authenticated(Methods.getPlantDetails, .read) { try await plants.details($0.plantID, as: $1) }
        methods.authenticated(Methods.listPlants, .read) { try await plants.list($0, as: $1) }
        methods.authenticated(Methods.getCollectionStatistics, .read) { try await plants.statistics(as: $1) }
        methods.authenticated(Methods.updatePlant, .write) { try await plants.update($0, as: $1) }
        methods.authenticated(Methods.setFavorite, .write) { try await plants.setFavorite($0, as: $1) }
        methods.authenticated(Methods.getCareInfo, .read) { try await plants.care($0, as: $1) }
        methods.authenticated(Methods.deletePlant, .write) { try await plants.delete($0.plantID, as: $1) }
        methods.authenticated(Methods.addPlantPhoto, .write) { try await photos.add($0, as: $1) }
        methods.authenticated(Methods.getPhoto, .read) { try await photos.get($0, as: $1) }
        methods.authenticated(Methods.deletePlantPhoto, .write) { try await photos.delete($0, as: $1) }
        methods.authenticated(Methods.listTasks, .read) { try await tasks.list($0, as: $1) }
        methods.authenticated(Methods.completeTasks, .write) { try await tasks.complete($0, as: $1) }
        methods.authenticated(Methods.snoozeTask, .write) { try await tasks.snooze($0, as: $1) }
        methods.authenticated(Methods.skipTask, .write) { try await tasks.skip($0, as: $1) }
        methods.authenticated(Methods.reopenTask, .write) { try await tasks.reopen($0, as: $1) }
        methods.authenticated(Methods.getStatus, .read) { await identifyAndStatus.status(as: $1) }
        methods.authenticated(Methods.createCalendarLink, .ownOnly) { _, caller in
            let path = try await accounts.newCalendarLink(userID: caller.id)
            return .with { $0.path = path }
        }
        methods.authenticated(Methods.revokeCalendarLink, .ownOnly) { _, caller in
            let revoked = try await accounts.revokeCalendarLink(userID: caller.id)
            return .with { $0.revoked = revoked }
        }
        let push = PushUseCases(services: services)
        methods.authenticated(Methods.createPushSubscription, .ownOnly) { try await push.subscribe($0, as: $1) }
        methods.authenticated(Methods.deletePushSubscription, .ownOnly) { try await push.unsubscribe($0, as: $1) }
        methods.authenticated(Methods.listPushSubscriptions, .ownOnly) { try await push.list(as: $1) }
        methods.authenticated(Methods.getPushKey, .ownOnly) { try await push.key(as: $1) }
        methods.authenticated(Methods.getSettings, .ownOnly) { try await accountData.settings(as: $1) }
        methods.authenticated(Methods.putSettings, .ownOnly) { try await accountData.putSettings($0, as: $1) }
        methods.authenticated(Methods.exportCollection, .ownOnly) { try await accountData.export(as: $1) }
        methods.authenticated(Methods.importCollection, .ownOnly) { try await accountData.importArchive($0, as: $1) }
        methods.authenticated(Methods.deleteAllData, .ownOnly) { try await accountData.deleteAll(as: $1) }
        methods.authenticated(Methods.shareCollection, .ownOnly) { request, caller in
            let share = try await households.share(ownerID: caller.id, memberName: request.memberName, access: request.access)
            return .with { $0.share = share }
        }
        methods.authenticated(Methods.listShares, .ownOnly) { _, caller in
            let shares = try await households.shares(of: caller.id)
            return .with {
                $0.given = shares.given
                $0.received = shares.received
            }
        }
        methods.authenticated(Methods.revokeShare, .ownOnly) { request, caller in
            let revoked = try await households.revoke(ownerID: caller.id, memberName: request.memberName)
            return .with { $0.revoked = revoked }
        }
        return methods
    }
}
