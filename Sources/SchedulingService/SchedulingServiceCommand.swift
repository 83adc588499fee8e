import ArgumentParser
import Foundation
import Logging
import PlantGuideHTTP
import PlantGuideRPC
import PlantGuideServiceKit
import PlantGuideStorage
import PlantGuideWebPush
import Scheduling
import ServiceLifecycle

/// `plantguide-scheduling`: care schedules, tasks, reminders and the calendar feed; serves by default.
public struct SchedulingServiceCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plantguide-scheduling",
        abstract: "PlantGuide care scheduling: schedules, tasks, reminders (PUB stream and webhooks), calendar (SQLite or PostgreSQL).",
        discussion: "Without a subcommand it serves (see `plantguide-scheduling serve --help`).",
        subcommands: [Serve.self, CopyData.self],
        defaultSubcommand: Serve.self)

    public init() {}
}

/// `plantguide-scheduling serve`: the scheduling RPC service and its reminder dispatcher.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve scheduling over RPC (Protos/plantguide/scheduling/v1) and deliver reminders.",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ plus health and metrics, and publishes reminders on a PUB socket \
            (topic "reminders." + hex SHA-256 of the user id, payload a plantguide.scheduling.v1.Reminder). \
            Schedules are in <data>/scheduling.sqlite, or in the schema "scheduling" of the PostgreSQL that \
            --database names. Stops cleanly on SIGTERM or SIGINT.
            Check it with: plantguide rpc health tcp://127.0.0.1:7004
            """)

    @OptionGroup var options: ServiceOptions
    @OptionGroup var storage: StorageOptions
    @OptionGroup var tls: OutboundTLSOptions

    @Option(name: .long, help: ArgumentHelp(
        "ZeroMQ endpoint of the reminder PUB socket (env PLANTGUIDE_REMINDERS_BIND). Default: tcp://127.0.0.1:7014.",
        valueName: "endpoint"))
    var remindersBind: String?

    @Option(name: .long, help: ArgumentHelp("Milliseconds between reminder rounds (env PLANTGUIDE_REMINDER_INTERVAL_MS). Default: 1000.", valueName: "ms"))
    var reminderIntervalMs: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Web Push: the VAPID private key reminders to browsers are signed with, PEM or a base64url scalar; Deploy/make-keys makes one "
            + "(env PLANTGUIDE_VAPID_PRIVATE_KEY_FILE, or the key itself in PLANTGUIDE_VAPID_PRIVATE_KEY). Default: Web Push off.",
        valueName: "path"))
    var vapidPrivateKeyFile: String?

    @Option(name: .long, help: ArgumentHelp(
        "Web Push: who runs this server, for push services to contact, mailto: or https: (env PLANTGUIDE_VAPID_SUBJECT). "
            + "Default: mailto:admin@localhost.", valueName: "uri"))
    var vapidSubject: String?

    @Option(name: .long, help: ArgumentHelp(
        "Web Push: the web app's origin as browsers reach it, the gateway's --public-origin (env PLANTGUIDE_PUBLIC_ORIGIN): "
            + "the page a notification opens when Safari shows it without the app's service worker. Default: none.",
        valueName: "url"))
    var publicOrigin: String?

    @Flag(name: .long, help: ArgumentHelp(
        "Tests only: webhooks and push services may be on loopback addresses, over plain http there "
            + "(env PLANTGUIDE_ALLOW_LOOPBACK_RECEIVERS=1). Private addresses stay refused."))
    var allowLoopbackReceivers = false

    /// The VAPID key from the flag or the environment; nil when none is given (Web Push off).
    private func vapidKey(_ environment: [String: String]) throws -> VAPIDKey? {
        let subject = setting(vapidSubject, "PLANTGUIDE_VAPID_SUBJECT", in: environment) ?? "mailto:admin@localhost"
        guard subject.hasPrefix("mailto:") || subject.hasPrefix("https://") else {
            throw ValidationError("the VAPID subject is a mailto: or https: URI, not '\(subject)'")
        }
        let text: String
        if let path = setting(vapidPrivateKeyFile, "PLANTGUIDE_VAPID_PRIVATE_KEY_FILE", in: environment) {
            guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ValidationError("cannot read the VAPID private key file '\(path)'")
            }
            text = contents
        } else if let inline = environment["PLANTGUIDE_VAPID_PRIVATE_KEY"], !inline.isEmpty {
            text = inline
        } else {
            return nil
        }
        do {
            return VAPIDKey(privateKey: try VAPIDKey.privateKey(fromText: text), subject: subject)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let resolved = try options.resolve(service: "scheduling", defaultBind: "tcp://127.0.0.1:7004", environment: environment)
        let pubEndpoint = setting(remindersBind, "PLANTGUIDE_REMINDERS_BIND", in: environment) ?? "tcp://127.0.0.1:7014"
        let intervalText = setting(reminderIntervalMs.map(String.init), "PLANTGUIDE_REMINDER_INTERVAL_MS", in: environment) ?? "1000"
        guard let interval = Int(intervalText), (10...60_000).contains(interval) else {
            throw ValidationError("reminder interval must be 10 to 60000 ms, not '\(intervalText)'")
        }
        let choice = try storage.resolve(service: "scheduling", environment: environment)
        let vapid = try vapidKey(environment)
        let loopbackReceivers = allowLoopbackReceivers || environment["PLANTGUIDE_ALLOW_LOOPBACK_RECEIVERS"] == "1"
        let appOrigin = setting(publicOrigin, "PLANTGUIDE_PUBLIC_ORIGIN", in: environment)
        if let appOrigin {
            guard let url = URL(string: appOrigin), ["https", "http"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false,
                  url.path.isEmpty || url.path == "/", url.query == nil else {
                throw ValidationError("the public origin is a scheme and host, like https://plants.example.org, not '\(appOrigin)'")
            }
        }
        let http = CurlHTTPClient(authorities: try tls.resolve(environment: environment))
        let publisher = try Publisher(bind: pubEndpoint, curve: resolved.curve)
        try await runService(name: "plantguide-scheduling", options: resolved) { environment in
            var configuration = SchedulingConfiguration(dataDirectory: environment.dataDirectory)
            configuration.vapid = vapid
            configuration.allowLoopbackReceivers = loopbackReceivers
            configuration.appOrigin = appOrigin
            if vapid == nil { environment.logger.info("Web Push is off: no VAPID key (--vapid-private-key-file)") }
            guard case .postgres(let settings) = choice else {
                // On SQLite every start plans all schedules again (no replica shares the day's claim): in the
                // background, as before, so that a restart serves at once.
                let service = try SchedulingRPCService(configuration: configuration, logger: environment.logger)
                return ServiceSet(
                    rpc: [service],
                    background: [DatabaseMaintenance(), DispatchLoop(
                        dispatcher: service.dispatcher(publisher: publisher, http: http), store: service.store, interval: .milliseconds(interval),
                        extendedDay: nil)])
            }
            environment.logger.info("scheduling in PostgreSQL", metadata: ["database": "\(settings)"])
            let database = try await PostgresStorage.open(settings, migrations: PostgresScheduling.migrations, logger: environment.logger)
            let service = SchedulingRPCService(configuration: configuration, records: PostgresScheduling(database), database: database)
            let extended = await extendHorizonsBeforeServing(service.store, logger: environment.logger)
            return ServiceSet(
                rpc: [service],
                background: [PostgresStorageService(database), DispatchLoop(
                    dispatcher: service.dispatcher(publisher: publisher, http: http), store: service.store, interval: .milliseconds(interval),
                    extendedDay: extended)])
        }
        publisher.close()
    }
}

/// The day's horizon extension on PostgreSQL (when no replica did it today), done before the service takes calls:
/// done by the dispatcher's first round, beside the first calls, it planned again the schedules those calls had
/// just made and gave their calendar feeds a new version for nothing (a feed's ETag changed between two polls a
/// second apart). A replica started later the same day finds the day claimed and serves at once. Returns the UTC
/// day it is done for; nil when it failed (the dispatcher then tries again).
private func extendHorizonsBeforeServing(_ store: SchedulingStore, logger: Logger) async -> Int? {
    let day = Int(Date().timeIntervalSince1970 / 86_400)
    do {
        let planned = try await store.extendHorizonsOncePerDay()
        if planned > 0 { logger.info("horizons extended before serving", metadata: ["schedules": "\(planned)"]) }
        return day
    } catch {
        logger.warning("cannot extend the horizons at start; the dispatcher tries again", metadata: ["error": "\(error)"])
        return nil
    }
}

/// Runs the reminder dispatcher (and the daily horizon extension) until shutdown.
private struct DispatchLoop: Service {
    let dispatcher: ReminderDispatcher
    let store: SchedulingStore
    let interval: Duration
    /// The UTC day whose extension was done before serving.
    let extendedDay: Int?

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await dispatcher.run(every: interval, store: store, horizonsExtendedOn: extendedDay)
        }
    }
}

/// `plantguide-scheduling copy-data`: a SQLite deployment's schedules, tasks and reminders into PostgreSQL.
struct CopyData: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-data",
        abstract: "Copy the scheduling data of a SQLite data folder into PostgreSQL, and prove the copy.",
        discussion: """
            Reads <from>/scheduling.sqlite and writes every user's preferences, schedules, tasks, webhooks, \
            reminders and deliveries into the PostgreSQL that --to names (the password from \
            PLANTGUIDE_DATABASE_PASSWORD or PLANTGUIDE_DATABASE_PASSWORD_FILE), replacing rows of the same key, \
            so running it again is harmless. Then compares the two table by table and prints the counts and a \
            SHA-256 of each side; exits 1 when a row is missing or different. Stop the service first.
            """)

    @OptionGroup var copy: CopyDataOptions

    func run() async throws {
        try await CopyDataRun.run(service: "scheduling", file: "scheduling.sqlite", options: copy,
                                  migrations: PostgresScheduling.migrations) { database, logger in
            let source = try SQLiteScheduling.open(folder: copy.folder, logger: logger)
            return try await SchedulingCopy.copy(from: source, to: PostgresScheduling(database)) { users in
                print("  \(users) users copied")
            }
        }
    }
}
