import ArgumentParser
import Foundation
import Logging
import PlantGuideRPC

/// Flags every PlantGuide service takes. Each has an environment variable that is used when the flag is not
/// given; the flag wins.
public struct ServiceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "ZeroMQ endpoint to bind, e.g. tcp://127.0.0.1:7003 or tcp://*:7003 (env PLANTGUIDE_BIND).",
        valueName: "endpoint"))
    public var bind: String?

    @Option(name: .long, help: ArgumentHelp(
        "Folder for the service's data, created if missing (env PLANTGUIDE_DATA). Default: ./data/<service>.",
        valueName: "path"))
    public var data: String?

    @Option(name: .long, help: ArgumentHelp(
        "trace, debug, info, notice, warning, error or critical (env PLANTGUIDE_LOG_LEVEL). Default: info.",
        valueName: "level"))
    public var logLevel: String?

    @Option(name: .long, help: ArgumentHelp(
        "text (lines for people) or json (one JSON object a line, with the request's trace id, for log collectors) "
            + "(env PLANTGUIDE_LOG_FORMAT). Default: text.",
        valueName: "format"))
    public var logFormat: String?

    @Option(name: .long, help: ArgumentHelp(
        "Largest request accepted, in MiB (env PLANTGUIDE_MAX_MESSAGE_MIB). Default: 16.", valueName: "MiB"))
    public var maxMessageMib: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Seconds to let calls in flight finish on SIGTERM/SIGINT (env PLANTGUIDE_SHUTDOWN_GRACE). Default: 10.",
        valueName: "seconds"))
    public var shutdownGrace: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Calls handled at once (env PLANTGUIDE_MAX_CONCURRENT_CALLS). Default: 256; identification 32.", valueName: "count"))
    public var maxConcurrentCalls: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Calls waiting beyond those; more get RESOURCE_EXHAUSTED (env PLANTGUIDE_MAX_QUEUED_CALLS). Default: 4096; identification 128.",
        valueName: "count"))
    public var maxQueuedCalls: Int?

    @Option(name: .long, help: ArgumentHelp(
        "CurveZMQ: this server's secret key (plantguide keys generate) (env PLANTGUIDE_CURVE_SECRET_KEY_FILE, or the key itself in "
            + "PLANTGUIDE_CURVE_SECRET_KEY). With --curve-allowed-clients-file, only those clients may connect. Default: off.",
        valueName: "path"))
    public var curveSecretKeyFile: String?

    @Option(name: .long, help: ArgumentHelp(
        "CurveZMQ: the public keys of the clients allowed in, one per line (env PLANTGUIDE_CURVE_ALLOWED_CLIENTS_FILE, or "
            + "comma-separated in PLANTGUIDE_CURVE_ALLOWED_CLIENTS).", valueName: "path"))
    public var curveAllowedClientsFile: String?

    public init() {}

    /// The options with environment fallbacks and defaults applied.
    /// - Throws: `ValidationError` naming the bad flag or variable.
    /// `limits` are the service's defaults for calls handled at once and calls waiting (services whose calls
    /// carry megabytes, like identification, hold fewer).
    public func resolve(
        service: String, defaultBind: String, limits: (concurrent: Int, queued: Int) = (256, 4_096),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ResolvedServiceOptions {
        func pick(_ flag: String?, _ variable: String) -> String? { setting(flag, variable, in: environment) }
        let levelText = pick(logLevel, "PLANTGUIDE_LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw ValidationError("unknown log level '\(levelText)'; use trace, debug, info, notice, warning, error or critical")
        }
        let formatText = pick(logFormat, "PLANTGUIDE_LOG_FORMAT") ?? "text"
        guard let format = LogFormat(rawValue: formatText.lowercased()) else {
            throw ValidationError("unknown log format '\(formatText)'; use text or json")
        }
        let mibText = pick(maxMessageMib.map(String.init), "PLANTGUIDE_MAX_MESSAGE_MIB") ?? "16"
        guard let mib = Int(mibText), (1...1_024).contains(mib) else {
            throw ValidationError("max message size must be 1 to 1024 MiB, not '\(mibText)'")
        }
        let graceText = pick(shutdownGrace.map(String.init), "PLANTGUIDE_SHUTDOWN_GRACE") ?? "10"
        guard let grace = Int(graceText), grace >= 0 else {
            throw ValidationError("shutdown grace must be a whole number of seconds, not '\(graceText)'")
        }
        func count(_ flag: Int?, _ variable: String, _ fallback: Int, _ what: String, minimum: Int) throws -> Int {
            let text = pick(flag.map(String.init), variable) ?? String(fallback)
            guard let value = Int(text), (minimum...1_000_000).contains(value) else {
                throw ValidationError("\(what) must be a whole number from \(minimum) to 1000000, not '\(text)'")
            }
            return value
        }
        let concurrent = try count(maxConcurrentCalls, "PLANTGUIDE_MAX_CONCURRENT_CALLS", limits.concurrent, "max concurrent calls", minimum: 1)
        let queued = try count(maxQueuedCalls, "PLANTGUIDE_MAX_QUEUED_CALLS", limits.queued, "max queued calls", minimum: 0)
        let bind = pick(bind, "PLANTGUIDE_BIND") ?? defaultBind
        guard bind.contains("://") else {
            throw ValidationError("bind endpoint '\(bind)' needs a transport, e.g. tcp://127.0.0.1:7003")
        }
        let dataPath = pick(data, "PLANTGUIDE_DATA") ?? "data/\(service)"
        return ResolvedServiceOptions(
            bind: bind, dataDirectory: URL(fileURLWithPath: dataPath, isDirectory: true), logLevel: level, logFormat: format,
            maxMessageSize: mib << 20, shutdownGrace: .seconds(grace), maxConcurrentCalls: concurrent, maxQueuedCalls: queued,
            curve: try curveSecurity(environment))
    }

    /// The server's CurveZMQ settings: both a secret key and the allowed clients, or neither (off).
    private func curveSecurity(_ environment: [String: String]) throws -> CurveServerSecurity? {
        do {
            let secret = try CurveSecurity.keys(file: curveSecretKeyFile, fileVariable: "PLANTGUIDE_CURVE_SECRET_KEY_FILE",
                                                variable: "PLANTGUIDE_CURVE_SECRET_KEY", environment: environment)?.first
            let allowed = try CurveSecurity.keys(file: curveAllowedClientsFile, fileVariable: "PLANTGUIDE_CURVE_ALLOWED_CLIENTS_FILE",
                                                 variable: "PLANTGUIDE_CURVE_ALLOWED_CLIENTS", environment: environment)
            switch (secret, allowed) {
            case (nil, nil): return nil
            case (let secret?, let allowed?): return CurveServerSecurity(keyPair: try CurveKeyPair(secretKey: secret), allowedClientKeys: Set(allowed))
            case (nil, _): throw ValidationError("CurveZMQ needs this server's secret key too (--curve-secret-key-file)")
            case (_, nil): throw ValidationError("CurveZMQ needs the allowed client keys too (--curve-allowed-clients-file)")
            }
        } catch let error as RPCError {
            throw ValidationError(error.message)
        }
    }
}

/// Service options after environment fallbacks and defaults.
public struct ResolvedServiceOptions: Sendable {
    public var bind: String
    public var dataDirectory: URL
    public var logLevel: Logger.Level
    public var logFormat: LogFormat
    public var maxMessageSize: Int
    public var shutdownGrace: Duration
    public var maxConcurrentCalls: Int
    public var maxQueuedCalls: Int
    /// CurveZMQ for the server socket (and a service's PUB socket); nil when off.
    public var curve: CurveServerSecurity?
}

/// How a service writes its log lines to standard error.
public enum LogFormat: String, Sendable {
    /// swift-log's lines for people: time, level, label, message, metadata.
    case text
    /// One JSON object a line (``JSONLogHandler``).
    case json
}
