import ArgumentParser
import CareData
import Foundation
import Logging
import PlantGuideHTTP
import PlantGuideServiceKit
import PlantGuideStorage

/// `plantguide-caredata`: care data (Trefle, cache, offline catalog); serves by default.
public struct CareDataServiceCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plantguide-caredata",
        abstract: "PlantGuide care data: Open Plantbook, Perenual, Trefle and an offline catalog of 171 species, merged field by field "
            + "behind a 7-day cache (SQLite or PostgreSQL).",
        discussion: "Without a subcommand it serves (see `plantguide-caredata serve --help`).",
        subcommands: [Serve.self, CopyData.self],
        defaultSubcommand: Serve.self)

    public init() {}
}

/// `plantguide-caredata serve`: the care-data RPC service.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve care data over RPC (Protos/plantguide/caredata/v1).",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ plus health and metrics. The cache is <data>/caredata.sqlite, or \
            the schema "caredata" of the PostgreSQL that --database names (several replicas may \
            share it). Each provider is optional: without credentials it is not asked, and answers \
            come from the others, the cache and the offline catalog. Names are matched to the \
            accepted species by GBIF (no key; --gbif-url off to stop it). Stops cleanly on SIGTERM or SIGINT.
            Check it with: plantguide rpc health tcp://127.0.0.1:7002
            """)

    @OptionGroup var options: ServiceOptions
    @OptionGroup var storage: StorageOptions
    @OptionGroup var tls: OutboundTLSOptions

    @Option(name: .long, help: ArgumentHelp(
        "Trefle API token (env PLANTGUIDE_TREFLE_TOKEN; prefer the variable: flags show in process lists).",
        valueName: "token"))
    var trefleToken: String?

    @Option(name: .long, help: ArgumentHelp("Trefle base URL (env PLANTGUIDE_TREFLE_URL). Default: https://trefle.io.", valueName: "url"))
    var trefleURL: String?

    @Option(name: .long, help: ArgumentHelp(
        "Requests a minute sent to Trefle at most (env PLANTGUIDE_TREFLE_RATE_LIMIT). Default: 60.", valueName: "n"))
    var trefleRateLimit: Int?

    @Option(name: .customLong("openplantbook-client-id"), help: ArgumentHelp(
        "Open Plantbook client id (env PLANTGUIDE_OPENPLANTBOOK_CLIENT_ID); the secret comes from PLANTGUIDE_OPENPLANTBOOK_CLIENT_SECRET.",
        valueName: "id"))
    var openPlantbookClientID: String?

    @Option(name: .customLong("openplantbook-url"), help: ArgumentHelp(
        "Open Plantbook base URL (env PLANTGUIDE_OPENPLANTBOOK_URL). Default: https://open.plantbook.io.", valueName: "url"))
    var openPlantbookURL: String?

    @Option(name: .long, help: ArgumentHelp(
        "Perenual API key (env PLANTGUIDE_PERENUAL_KEY; prefer the variable: flags show in process lists).", valueName: "key"))
    var perenualKey: String?

    @Option(name: .long, help: ArgumentHelp("Perenual base URL (env PLANTGUIDE_PERENUAL_URL). Default: https://perenual.com.", valueName: "url"))
    var perenualURL: String?

    @Option(name: .long, help: ArgumentHelp(
        "Perenual requests a day at most, per replica (env PLANTGUIDE_PERENUAL_DAILY_BUDGET). Default: 90 (the free tier allows about 100).",
        valueName: "n"))
    var perenualDailyBudget: Int?

    @Option(name: .long, help: ArgumentHelp(
        "GBIF API base URL for name matching, or \"off\" (env PLANTGUIDE_GBIF_URL). Default: https://api.gbif.org.", valueName: "url"))
    var gbifURL: String?

    @Option(name: .long, help: ArgumentHelp("Days a cached species stays fresh (env PLANTGUIDE_CACHE_TTL_DAYS). Default: 7.", valueName: "days"))
    var cacheTTLDays: Double?

    @Option(name: .long, help: ArgumentHelp(
        "Seconds a lookup waits for providers at most before it answers from what has arrived; a caller's earlier deadline "
            + "cuts it further, and a late provider's answer fills the cache (env PLANTGUIDE_LOOKUP_BUDGET). Default: 4.",
        valueName: "seconds"))
    var lookupBudget: Double?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let resolved = try options.resolve(service: "caredata", defaultBind: "tcp://127.0.0.1:7002", environment: environment)
        let configuration = try careDataConfiguration(dataDirectory: resolved.dataDirectory, environment: environment)
        let choice = try storage.resolve(service: "caredata", environment: environment)
        let http = CurlHTTPClient(authorities: try tls.resolve(environment: environment))
        try await runService(name: "plantguide-caredata", options: resolved) { service in
            guard case .postgres(let settings) = choice else {
                return ServiceSet(rpc: [try CareDataRPCService(configuration: configuration, http: http, logger: service.logger)],
                                  background: [DatabaseMaintenance()])
            }
            service.logger.info("care data in PostgreSQL", metadata: ["database": "\(settings)"])
            let database = try await PostgresStorage.open(settings, migrations: PostgresCareEntries.migrations, logger: service.logger)
            let cache = CareCache(entries: PostgresCareEntries(database))
            return ServiceSet(rpc: [try CareDataRPCService(configuration: configuration, cache: cache, database: database, http: http,
                                                           logger: service.logger)],
                              background: [PostgresStorageService(database)])
        }
    }

    private func careDataConfiguration(dataDirectory: URL, environment: [String: String]) throws -> CareDataConfiguration {
        func pick(_ flag: String?, _ variable: String) -> String? { setting(flag, variable, in: environment) }
        let urlText = pick(trefleURL, "PLANTGUIDE_TREFLE_URL") ?? "https://trefle.io"
        var trefle = TrefleConfiguration(baseURL: try Self.httpURL(urlText, "Trefle"), token: pick(trefleToken, "PLANTGUIDE_TREFLE_TOKEN"))
        let rateText = pick(trefleRateLimit.map(String.init), "PLANTGUIDE_TREFLE_RATE_LIMIT") ?? "60"
        guard let rate = Int(rateText), (1...10_000).contains(rate) else {
            throw ValidationError("Trefle rate limit must be 1 to 10000 requests a minute, not '\(rateText)'")
        }
        trefle.requestsPerMinute = rate
        var configuration = CareDataConfiguration(dataDirectory: dataDirectory, trefle: trefle)
        configuration.openPlantbook = OpenPlantbookConfiguration(
            baseURL: try Self.httpURL(pick(openPlantbookURL, "PLANTGUIDE_OPENPLANTBOOK_URL") ?? "https://open.plantbook.io", "Open Plantbook"),
            clientID: pick(openPlantbookClientID, "PLANTGUIDE_OPENPLANTBOOK_CLIENT_ID"),
            clientSecret: pick(nil, "PLANTGUIDE_OPENPLANTBOOK_CLIENT_SECRET"))
        if (configuration.openPlantbook.clientID == nil) != (configuration.openPlantbook.clientSecret == nil) {
            throw ValidationError("Open Plantbook needs both a client id and PLANTGUIDE_OPENPLANTBOOK_CLIENT_SECRET, or neither")
        }
        configuration.perenual = PerenualConfiguration(
            baseURL: try Self.httpURL(pick(perenualURL, "PLANTGUIDE_PERENUAL_URL") ?? "https://perenual.com", "Perenual"),
            key: pick(perenualKey, "PLANTGUIDE_PERENUAL_KEY"))
        let budgetText = pick(perenualDailyBudget.map(String.init), "PLANTGUIDE_PERENUAL_DAILY_BUDGET") ?? "90"
        guard let budget = Int(budgetText), (1...1_000_000).contains(budget) else {
            throw ValidationError("Perenual's daily budget must be 1 to 1000000 requests, not '\(budgetText)'")
        }
        configuration.perenual.dailyBudget = budget
        let gbifText = pick(gbifURL, "PLANTGUIDE_GBIF_URL") ?? "https://api.gbif.org"
        configuration.gbif = GBIFConfiguration(baseURL: gbifText.lowercased() == "off" ? nil : try Self.httpURL(gbifText, "GBIF"))
        let ttlText = pick(cacheTTLDays.map { String($0) }, "PLANTGUIDE_CACHE_TTL_DAYS") ?? "7"
        guard let days = Double(ttlText), days > 0, days <= 365 else {
            throw ValidationError("cache TTL must be more than 0 and at most 365 days, not '\(ttlText)'")
        }
        configuration.cacheTTL = .seconds(days * 86_400)
        let budgetSeconds = pick(lookupBudget.map { String($0) }, "PLANTGUIDE_LOOKUP_BUDGET") ?? "4"
        guard let seconds = Double(budgetSeconds), seconds >= 0.1, seconds <= 120 else {
            throw ValidationError("the lookup budget must be 0.1 to 120 seconds, not '\(budgetSeconds)'")
        }
        configuration.lookupBudget = .milliseconds(Int64(seconds * 1_000))
        return configuration
    }

    private static func httpURL(_ text: String, _ provider: String) throws -> URL {
        guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw ValidationError("\(provider) URL '\(text)' is not an http(s) URL")
        }
        return url
    }
}

/// `plantguide-caredata copy-data`: a SQLite deployment's cache into PostgreSQL.
struct CopyData: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-data",
        abstract: "Copy the care-data cache of a SQLite data folder into PostgreSQL, and prove the copy.",
        discussion: """
            Reads <from>/caredata.sqlite and writes every entry into the PostgreSQL that --to names (the \
            password from PLANTGUIDE_DATABASE_PASSWORD or PLANTGUIDE_DATABASE_PASSWORD_FILE), \
            replacing entries of the same name, so running it again is harmless. Then compares the \
            two entry by entry and prints the counts and a SHA-256 of each side; exits 1 when an \
            entry is missing or different. Stop the service first.
            """)

    @OptionGroup var copy: CopyDataOptions

    func run() async throws {
        let path = copy.folder.appendingPathComponent("caredata.sqlite").path
        try await CopyDataRun.run(service: "caredata", file: "caredata.sqlite", options: copy, migrations: PostgresCareEntries.migrations) { database, _ in
            try await CareCacheCopy.copy(from: try SQLiteCareEntries(path: path), to: PostgresCareEntries(database)) { copied in
                print("  \(copied) entries copied")
            }
        }
    }
}
