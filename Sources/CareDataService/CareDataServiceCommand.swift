import ArgumentParser
import CareData
import Foundation
import PlantGuideServiceKit
import PlantGuideStorage

/// `plantguide-caredata`: care data (Trefle, cache, offline catalog).
@main
struct CareDataServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plantguide-caredata",
        abstract: "PlantGuide care data: Trefle, a 7-day SQLite cache, and an offline catalog of 171 species.",
        discussion: """
            Serves PlantGuide RPC over ZeroMQ (Protos/plantguide/caredata/v1) plus health and metrics. Without a \
            Trefle token every answer comes from the cache and the offline catalog. Stops cleanly on SIGTERM or SIGINT.
            Check it with: plantguide rpc health tcp://127.0.0.1:7002
            """)

    @OptionGroup var options: ServiceOptions

    @Option(name: .long, help: ArgumentHelp(
        "Trefle API token (env PLANTGUIDE_TREFLE_TOKEN; prefer the variable: flags show in process lists).",
        valueName: "token"))
    var trefleToken: String?

    @Option(name: .long, help: ArgumentHelp("Trefle base URL (env PLANTGUIDE_TREFLE_URL). Default: https://trefle.io.", valueName: "url"))
    var trefleURL: String?

    @Option(name: .long, help: ArgumentHelp(
        "Requests a minute sent to Trefle at most (env PLANTGUIDE_TREFLE_RATE_LIMIT). Default: 60.", valueName: "n"))
    var trefleRateLimit: Int?

    @Option(name: .long, help: ArgumentHelp("Days a cached species stays fresh (env PLANTGUIDE_CACHE_TTL_DAYS). Default: 7.", valueName: "days"))
    var cacheTTLDays: Double?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let resolved = try options.resolve(service: "caredata", defaultBind: "tcp://127.0.0.1:7002", environment: environment)
        let configuration = try careDataConfiguration(dataDirectory: resolved.dataDirectory, environment: environment)
        try await runService(name: "plantguide-caredata", options: resolved) { service in
            ServiceSet(rpc: [try CareDataRPCService(configuration: configuration, logger: service.logger)], background: [DatabaseMaintenance()])
        }
    }

    private func careDataConfiguration(dataDirectory: URL, environment: [String: String]) throws -> CareDataConfiguration {
        func pick(_ flag: String?, _ variable: String) -> String? { setting(flag, variable, in: environment) }
        let urlText = pick(trefleURL, "PLANTGUIDE_TREFLE_URL") ?? "https://trefle.io"
        guard let url = URL(string: urlText), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw ValidationError("Trefle URL '\(urlText)' is not an http(s) URL")
        }
        var trefle = TrefleConfiguration(baseURL: url, token: pick(trefleToken, "PLANTGUIDE_TREFLE_TOKEN"))
        let rateText = pick(trefleRateLimit.map(String.init), "PLANTGUIDE_TREFLE_RATE_LIMIT") ?? "60"
        guard let rate = Int(rateText), (1...10_000).contains(rate) else {
            throw ValidationError("Trefle rate limit must be 1 to 10000 requests a minute, not '\(rateText)'")
        }
        trefle.requestsPerMinute = rate
        var configuration = CareDataConfiguration(dataDirectory: dataDirectory, trefle: trefle)
        let ttlText = pick(cacheTTLDays.map { String($0) }, "PLANTGUIDE_CACHE_TTL_DAYS") ?? "7"
        guard let days = Double(ttlText), days > 0, days <= 365 else {
            throw ValidationError("cache TTL must be more than 0 and at most 365 days, not '\(ttlText)'")
        }
        configuration.cacheTTL = .seconds(days * 86_400)
        return configuration
    }
}
