import ArgumentParser
import Foundation

/// Where a stateful service keeps its data: SQLite files in its data folder (the default, for one machine), or a
/// schema of its own on a PostgreSQL server (for replicas).
public enum StorageChoice: Sendable, Equatable {
    case sqlite
    case postgres(PostgresSettings)
}

/// How to reach PostgreSQL. The password never appears in a URL, a log line or `description`.
public struct PostgresSettings: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    public var password: String?
    public var tls: TLSMode
    /// Connections the service keeps at most.
    public var poolSize: Int
    /// The schema the service's tables live in (the service's name by default), so that services can share a
    /// database.
    public var schema: String

    public init(host: String, port: Int = 5432, user: String, database: String, password: String?, tls: TLSMode = .disable,
                poolSize: Int = 10, schema: String) {
        self.host = host
        self.port = port
        self.user = user
        self.database = database
        self.password = password
        self.tls = tls
        self.poolSize = poolSize
        self.schema = schema
    }

    /// Parses `postgres://USER@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]` (or `postgresql://`).
    /// - Throws: `ValidationError` saying what is wrong, including a password written into the URL.
    public init(url text: String, password: String?, poolSize: Int, schema: String) throws {
        guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? "") else {
            throw ValidationError("the database URL must look like postgres://USER@HOST:PORT/DATABASE, not '\(Self.redacted(text))'")
        }
        guard url.password == nil else {
            throw ValidationError("the database URL holds a password: give it in PLANTGUIDE_DATABASE_PASSWORD or PLANTGUIDE_DATABASE_PASSWORD_FILE")
        }
        guard let user = url.user, !user.isEmpty else { throw ValidationError("the database URL names no user (postgres://USER@HOST/DATABASE)") }
        guard let host = url.host, !host.isEmpty else { throw ValidationError("the database URL names no host") }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw ValidationError("the database URL names no database (…/DATABASE)") }
        guard (1...1_000).contains(poolSize) else { throw ValidationError("the database pool size must be 1 to 1000, not \(poolSize)") }
        guard schema.range(of: #"^[a-z_][a-z0-9_]{0,62}$"#, options: .regularExpression) != nil else {
            throw ValidationError("the schema name '\(schema)' must be lower-case letters, digits and '_'")
        }
        var tls = TLSMode.disable
        for item in url.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("sslmode", let value?):
                guard let mode = TLSMode(rawValue: value) else {
                    throw ValidationError("sslmode must be disable, prefer or require, not '\(value)'")
                }
                tls = mode
            default:
                throw ValidationError("the database URL's option '\(item.name)' is not known; sslmode is")
            }
        }
        self.init(host: host, port: url.port ?? 5432, user: user, database: database, password: password, tls: tls,
                  poolSize: poolSize, schema: schema)
    }

    /// The settings as a URL without the password, for logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database) (schema \(schema))" }

    /// `text` with anything between "://" and "@" replaced, for error messages about a URL that may hold a password.
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text.range(of: "@", range: scheme.upperBound..<text.endIndex) else { return text }
        return text.replacingCharacters(in: scheme.upperBound..<at.lowerBound, with: "…")
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.description == rhs.description && lhs.password == rhs.password }
}

/// The storage flags of the stateful executables (collection, scheduling, care data, the gateway).
public struct StorageOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "PostgreSQL to keep the data in, as postgres://USER@HOST:PORT/DATABASE[?sslmode=require] (env PLANTGUIDE_DATABASE_URL); the "
            + "password from PLANTGUIDE_DATABASE_PASSWORD or the file PLANTGUIDE_DATABASE_PASSWORD_FILE names. Default: SQLite in --data.",
        valueName: "url"))
    public var database: String?

    @Option(name: .long, help: ArgumentHelp(
        "Connections to PostgreSQL kept at most (env PLANTGUIDE_DATABASE_POOL_SIZE). Default: 10.", valueName: "count"))
    public var databasePoolSize: Int?

    @Option(name: .long, help: ArgumentHelp(
        "The PostgreSQL schema of this service's tables (env PLANTGUIDE_DATABASE_SCHEMA). Default: the service's name.",
        valueName: "name"))
    public var databaseSchema: String?

    public init() {}

    /// The choice the flags and environment make; `service` names the default schema.
    /// - Throws: `ValidationError` for a malformed URL, pool size or schema, or a password file that cannot be read.
    public func resolve(service: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> StorageChoice {
        func pick(_ flag: String?, _ variable: String) -> String? {
            if let flag, !flag.isEmpty { return flag }
            return environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let url = pick(database, "PLANTGUIDE_DATABASE_URL") else { return .sqlite }
        let sizeText = pick(databasePoolSize.map(String.init), "PLANTGUIDE_DATABASE_POOL_SIZE") ?? "10"
        guard let size = Int(sizeText) else { throw ValidationError("the database pool size must be a whole number, not '\(sizeText)'") }
        return .postgres(try PostgresSettings(url: url, password: try Self.password(environment: environment), poolSize: size,
                                              schema: pick(databaseSchema, "PLANTGUIDE_DATABASE_SCHEMA") ?? service))
    }

    /// The database password: PLANTGUIDE_DATABASE_PASSWORD, else the contents of the file
    /// PLANTGUIDE_DATABASE_PASSWORD_FILE names, else none.
    public static func password(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if let password = environment["PLANTGUIDE_DATABASE_PASSWORD"], !password.isEmpty { return password }
        guard let file = environment["PLANTGUIDE_DATABASE_PASSWORD_FILE"], !file.isEmpty else { return nil }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ValidationError("cannot read the database password file \(file)")
        }
        return text.trimmingCharacters(in: .newlines)
    }
}
