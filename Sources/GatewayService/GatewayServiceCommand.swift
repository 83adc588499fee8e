import ArgumentParser
import Foundation
import Gateway
import Logging
import PlantGuideRPC
import PlantGuideServiceKit
import PlantGuideStorage
import ServiceLifecycle

/// `plantguide-gateway`: the front door (serves by default), and the accounts it lets in.
public struct GatewayServiceCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plantguide-gateway",
        abstract: "PlantGuide gateway: authenticates callers and runs the app's use cases across the services.",
        discussion: """
            Without a subcommand it serves (see `plantguide-gateway serve --help`). Make a user and its token with \
            `plantguide-gateway users add NAME` (same --data folder), then call with "authorization: Bearer <token>".
            """,
        subcommands: [Serve.self, Users.self, Tokens.self, Invites.self, CopyData.self],
        defaultSubcommand: Serve.self)

    public init() {}
}

/// `plantguide-gateway serve`: the RPC front over the four services.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the gateway's RPC methods (Protos/plantguide/gateway/v1).",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ plus health and metrics; calls identification, care data, collection and \
            scheduling at the targets given (an endpoint, a comma-separated list, or dns:///name:port). Accounts, shares, \
            settings, and the deletions and care lookups a service being down interrupted are kept in \
            <data>/gateway.sqlite, or in the schema "gateway" of the PostgreSQL that --database names. \
            Stops cleanly on SIGTERM or SIGINT.
            Check it with: plantguide rpc health tcp://127.0.0.1:7000
            """)

    @OptionGroup var options: ServiceOptions
    @OptionGroup var storage: StorageOptions

    @Option(name: .long, help: ArgumentHelp("Identification target (env PLANTGUIDE_IDENTIFICATION). Default: tcp://127.0.0.1:7001.", valueName: "target"))
    var identification: String?
    @Option(name: .long, help: ArgumentHelp("Care-data target (env PLANTGUIDE_CAREDATA). Default: tcp://127.0.0.1:7002.", valueName: "target"))
    var caredata: String?
    @Option(name: .long, help: ArgumentHelp("Collection target (env PLANTGUIDE_COLLECTION). Default: tcp://127.0.0.1:7003.", valueName: "target"))
    var collection: String?
    @Option(name: .long, help: ArgumentHelp("Scheduling target (env PLANTGUIDE_SCHEDULING). Default: tcp://127.0.0.1:7004.", valueName: "target"))
    var scheduling: String?
    @Option(name: .long, help: ArgumentHelp(
        "Scheduling's reminder PUB endpoints (a comma-separated list, or dns:///NAME:PORT for every scheduling replica), "
            + "relayed to GET /v1/reminders/stream (env PLANTGUIDE_REMINDERS). "
            + "Default: tcp://127.0.0.1:7014.", valueName: "endpoints"))
    var reminders: String?
    @Option(name: .long, help: ArgumentHelp(
        "Milliseconds between retries of interrupted deletions and care lookups (env PLANTGUIDE_RETRY_INTERVAL_MS). Default: 2000.",
        valueName: "ms"))
    var retryIntervalMs: Int?
    @Option(name: .long, help: ArgumentHelp(
        "Calls a second each token may make, bursts of twice that; 0 for no limit (env PLANTGUIDE_RATE_LIMIT). Default: 50.",
        valueName: "n"))
    var rateLimit: Int?
    @Option(name: .long, help: ArgumentHelp(
        "Who may open an account with POST /v1/accounts: open (anyone), invite (whoever has a code from `invites add`) "
            + "or closed (only `users add`) (env PLANTGUIDE_SIGNUP). Default: open.", valueName: "policy"))
    var signup: String?
    @Option(name: .long, help: ArgumentHelp(
        "The gateway's origin as browsers reach it, behind a proxy: https://plants.example.org (env PLANTGUIDE_PUBLIC_ORIGIN). "
            + "With https, the session cookie is __Host- and Secure; cookie changes are accepted only from this origin. "
            + "Default: the request's own Host, cookies without Secure.", valueName: "url"))
    var publicOrigin: String?
    @Option(name: .long, help: ArgumentHelp(
        "A proxy before the HTTP front whose X-Forwarded-For names the client: an address or a block, 10.0.0.0/8; repeat it for "
            + "more (env PLANTGUIDE_TRUSTED_PROXIES, comma-separated). Failed sign-ins back off per client address. Default: "
            + "none, the connection's peer is the client.", valueName: "address"))
    var trustedProxy: [String] = []
    @Option(name: .long, help: ArgumentHelp(
        "HOST:PORT of the HTTP/JSON front (env PLANTGUIDE_HTTP_BIND). Default: 127.0.0.1:7080 (0.0.0.0:7080 listens everywhere).",
        valueName: "host:port"))
    var httpBind: String?
    @Option(name: .long, help: ArgumentHelp(
        "CurveZMQ towards the services: the gateway's secret key (env PLANTGUIDE_CURVE_CLIENT_KEY_FILE, or the key in "
            + "PLANTGUIDE_CURVE_CLIENT_KEY); its public key must be in the services' allowed clients. Default: off.", valueName: "path"))
    var curveClientKeyFile: String?
    @Option(name: .long, help: ArgumentHelp(
        "CurveZMQ: the services' public key (env PLANTGUIDE_CURVE_SERVER_KEY_FILE, or the key in PLANTGUIDE_CURVE_SERVER_KEY).",
        valueName: "path"))
    var curveServerKeyFile: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let resolved = try options.resolve(service: "gateway", defaultBind: "tcp://127.0.0.1:7000", environment: environment)
        var configuration = GatewayConfiguration(dataDirectory: resolved.dataDirectory)
        if let target = setting(identification, "PLANTGUIDE_IDENTIFICATION", in: environment) { configuration.identification = target }
        if let target = setting(caredata, "PLANTGUIDE_CAREDATA", in: environment) { configuration.caredata = target }
        if let target = setting(collection, "PLANTGUIDE_COLLECTION", in: environment) { configuration.collection = target }
        if let target = setting(scheduling, "PLANTGUIDE_SCHEDULING", in: environment) { configuration.scheduling = target }
        if let endpoints = setting(reminders, "PLANTGUIDE_REMINDERS", in: environment) { configuration.reminders = endpoints }
        let intervalText = setting(retryIntervalMs.map(String.init), "PLANTGUIDE_RETRY_INTERVAL_MS", in: environment) ?? "2000"
        guard let interval = Int(intervalText), (10...600_000).contains(interval) else {
            throw ValidationError("the retry interval must be 10 to 600000 ms, not '\(intervalText)'")
        }
        configuration.retryInterval = .milliseconds(interval)
        let rateText = setting(rateLimit.map(String.init), "PLANTGUIDE_RATE_LIMIT", in: environment) ?? "50"
        guard let rate = Int(rateText), (0...1_000_000).contains(rate) else {
            throw ValidationError("the rate limit must be 0 to 1000000 calls a second, not '\(rateText)'")
        }
        configuration.callsPerSecond = rate
        let signUpText = setting(signup, "PLANTGUIDE_SIGNUP", in: environment) ?? "open"
        guard let signUp = SignUpPolicy(rawValue: signUpText) else {
            throw ValidationError("--signup is open, invite or closed, not '\(signUpText)'")
        }
        configuration.signUp = signUp
        if let origin = setting(publicOrigin, "PLANTGUIDE_PUBLIC_ORIGIN", in: environment) {
            guard let url = URL(string: origin), ["http", "https"].contains(url.scheme ?? ""), url.host != nil,
                  url.path.isEmpty || url.path == "/", url.query == nil else {
                throw ValidationError("the public origin is a scheme and a host, like https://plants.example.org, not '\(origin)'")
            }
            configuration.publicOrigin = origin
        }
        let proxies = trustedProxy.isEmpty
            ? (environment["PLANTGUIDE_TRUSTED_PROXIES"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            : trustedProxy
        configuration.clientAddresses.trustedProxies = try proxies.filter { !$0.isEmpty }.map { text in
            guard let range = AddressRange(text) else {
                throw ValidationError("a trusted proxy is an address or a block like 10.0.0.0/8, not '\(text)'")
            }
            return range
        }
        do {
            configuration.curve = try CurveClientSecurity.resolve(clientKeyFile: curveClientKeyFile, serverKeyFile: curveServerKeyFile,
                                                                  environment: environment)
        } catch let error as RPCError {
            throw ValidationError(error.message)
        }
        let httpText = setting(httpBind, "PLANTGUIDE_HTTP_BIND", in: environment) ?? "127.0.0.1:7080"
        guard let colon = httpText.lastIndex(of: ":"), let port = Int(httpText[httpText.index(after: colon)...]), (0...65_535).contains(port),
              colon != httpText.startIndex else {
            throw ValidationError("the HTTP bind address must be HOST:PORT, not '\(httpText)'")
        }
        let httpHost = String(httpText[..<colon])
        let choice = try storage.resolve(service: "gateway", environment: environment)
        try await runService(name: "plantguide-gateway", options: resolved) { environment in
            let gateway: GatewayRPCService
            let maintenance: any Service
            if case .postgres(let settings) = choice {
                environment.logger.info("gateway state in PostgreSQL", metadata: ["database": "\(settings)"])
                let database = try await PostgresStorage.open(settings, migrations: PostgresGateway.migrations, logger: environment.logger)
                gateway = try GatewayRPCService(configuration: configuration, records: PostgresGateway(database), database: database,
                                                logger: environment.logger)
                maintenance = PostgresStorageService(database)
            } else {
                gateway = try GatewayRPCService(configuration: configuration, logger: environment.logger)
                maintenance = DatabaseMaintenance()
            }
            let http = try gateway.httpFront(host: httpHost, port: port, maxBodyBytes: resolved.maxMessageSize, metrics: environment.scrapeMetrics,
                                         logger: environment.logger)
            // Shut down last to first: the relay ends the reminder streams, then the HTTP front drains.
            return ServiceSet(rpc: [gateway], background: [
                maintenance, SweepLoop(sweeper: gateway.sweeper, interval: configuration.retryInterval), gateway.rateLimitExchange, http,
                gateway.reminders,
            ])
        }
    }
}

/// Finishes interrupted deletions and care lookups until shutdown.
private struct SweepLoop: Service {
    let sweeper: PendingWorkSweeper
    let interval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await sweeper.run(every: interval)
        }
    }
}

/// The account commands' shared options: where the gateway keeps its state, as `serve` is told.
struct AccountOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The gateway's data folder, as `serve` uses it (env PLANTGUIDE_DATA). Default: ./data/gateway.", valueName: "path"))
    var data: String?
    @OptionGroup var storage: StorageOptions

    /// Runs `body` with the accounts of the gateway's SQLite data folder, or of its PostgreSQL with --database.
    func withStore<Result>(_ body: (AccountStore) async throws -> Result) async throws -> Result {
        let environment = ProcessInfo.processInfo.environment
        guard case .postgres(let settings) = try storage.resolve(service: "gateway", environment: environment) else {
            let folder = setting(data, "PLANTGUIDE_DATA", in: environment) ?? "./data/gateway"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            return try await body(AccountStore(records: try SQLiteGateway.open(folder: URL(fileURLWithPath: folder))))
        }
        var logger = Logger(label: "plantguide-gateway")
        logger.logLevel = .warning
        let database = try await PostgresStorage.openForCommand(settings, migrations: PostgresGateway.migrations, logger: logger)
        do {
            let result = try await body(AccountStore(records: PostgresGateway(database)))
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }
}

/// `plantguide-gateway users add|list`.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add users (each gets a token, printed once) and list them.", subcommands: [Add.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user and print a new token for it, once: only its hash is kept.",
            discussion: "With --token-only the token alone is printed, for scripts: TOKEN=$(plantguide-gateway users add ana --token-only)")
        @OptionGroup var accounts: AccountOptions
        @Argument(help: "The user's name: letters, digits, '.', '_', '-' or '@'.") var name: String
        @Flag(help: "Print only the token.") var tokenOnly = false

        func run() async throws {
            let issued: AccountStore.IssuedToken
            do {
                issued = try await accounts.withStore { try await $0.addUser(name: name) }
            } catch let error as AccountError {
                throw ValidationError(error.description)
            }
            if tokenOnly {
                print(issued.secret)
            } else {
                print("user \(name) (\(issued.userID)) added; its token (shown only now, token id \(issued.tokenID)):")
                print(issued.secret)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the users with their active tokens.")
        @OptionGroup var accounts: AccountOptions

        func run() async throws {
            let users = try await accounts.withStore { try await $0.users() }
            if users.isEmpty { print("no users yet: plantguide-gateway users add NAME") }
            for user in users {
                let tokens = "\(user.activeTokens) active token\(user.activeTokens == 1 ? "" : "s")"
                print("\(user.name)\t\(user.id)\t\(tokens)\tsince \(user.createdAt.formatted(.iso8601))")
            }
        }
    }
}

/// `plantguide-gateway invites add|list|revoke`: codes that each open one account under `--signup invite`.
struct Invites: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Invitation codes for --signup invite: each opens one account, until it expires.",
        subcommands: [Add.self, List.self, Revoke.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make invitation codes and print them, once: only their hashes are kept.",
            discussion: "Give each person one code; they enter it when signing up (the invitation field of POST /v1/accounts).")
        @OptionGroup var accounts: AccountOptions
        @Option(name: .long, help: "How many codes, 1 to 1000.") var count = 1
        @Option(name: .long, help: "Days each code stays usable, 1 to 365.") var days = 14

        func run() async throws {
            guard (1...1_000).contains(count) else { throw ValidationError("--count is 1 to 1000, not \(count)") }
            guard (1...365).contains(days) else { throw ValidationError("--days is 1 to 365, not \(days)") }
            let codes = try await accounts.withStore { try await $0.addInvitations(count: count, days: Double(days)) }
            for code in codes { print(code) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the invitations: open, used (by whom) or expired.")
        @OptionGroup var accounts: AccountOptions

        func run() async throws {
            let invitations = try await accounts.withStore { try await $0.invitations() }
            if invitations.isEmpty { print("no invitations yet: plantguide-gateway invites add") }
            let now = Date().timeIntervalSince1970
            for invitation in invitations {
                let state = invitation.usedBy.map { "used by \($0)" }
                    ?? (invitation.usedAt != nil ? "used (account deleted)" : invitation.expiresAt <= now ? "expired" : "open")
                let expires = Date(timeIntervalSince1970: invitation.expiresAt).formatted(.iso8601)
                print("\(invitation.id)\t\(state)\tmade \(Date(timeIntervalSince1970: invitation.createdAt).formatted(.iso8601))\tuntil \(expires)")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Withdraw an unused invitation, by its code or id.")
        @OptionGroup var accounts: AccountOptions
        @Argument(help: "The code (inv_<id>_<secret>) or its id.") var invitation: String

        func run() async throws {
            guard try await accounts.withStore({ try await $0.deleteInvitation(invitation) }) else {
                throw ValidationError("no unused invitation '\(invitation)'")
            }
            print("invitation withdrawn")
        }
    }
}

/// `plantguide-gateway tokens add|revoke`.
struct Tokens: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Give a user another token, or revoke one.", subcommands: [Add.self, Revoke.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a further token for an existing user, once.")
        @OptionGroup var accounts: AccountOptions
        @Argument(help: "The user's name.") var name: String

        func run() async throws {
            do {
                print(try await accounts.withStore { try await $0.addToken(userName: name) }.secret)
            } catch let error as AccountError {
                throw ValidationError(error.description)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a token: calls with it are refused from now on (a running gateway notices within a quarter second).",
            discussion: "Give the token itself (pg_<id>_<secret>) or its id (the part between the underscores).")
        @OptionGroup var accounts: AccountOptions
        @Argument(help: "The token or its id.") var token: String

        func run() async throws {
            let id = AccountStore.id(ofSecret: token, prefix: "pg_") ?? token
            guard try await accounts.withStore({ try await $0.revoke(tokenID: id) }) else {
                throw ValidationError("no active token with id '\(id)'")
            }
            print("token \(id) revoked")
        }
    }
}

/// `plantguide-gateway copy-data`: a SQLite deployment's accounts, shares, settings and pending work into PostgreSQL.
struct CopyData: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-data",
        abstract: "Copy the gateway's state of a SQLite data folder into PostgreSQL, and prove the copy.",
        discussion: """
            Reads <from>/gateway.sqlite and writes every user, password and token (their hashes; sessions with their \
            expiry), passkey, calendar link, share, identification setting and pending deletion or care lookup into \
            the PostgreSQL that --to names (the \
            password from PLANTGUIDE_DATABASE_PASSWORD or PLANTGUIDE_DATABASE_PASSWORD_FILE), in one transaction, \
            replacing rows of the same key, so running it again is harmless. Then compares the two table by table \
            and prints the counts and a SHA-256 of each side; exits 1 when a row is missing or different. Stop the \
            gateway first.
            """)

    @OptionGroup var copy: CopyDataOptions

    func run() async throws {
        try await CopyDataRun.run(service: "gateway", file: "gateway.sqlite", options: copy, migrations: PostgresGateway.migrations) { database, _ in
            try await GatewayCopy.copy(from: try SQLiteGateway.open(folder: copy.folder), to: PostgresGateway(database))
        }
    }
}
