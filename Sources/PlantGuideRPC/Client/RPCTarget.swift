import Foundation

/// Where a client sends its calls: a fixed list of ZeroMQ endpoints, or a DNS name whose every address is used
/// and re-resolved from time to time (a Docker Compose service scaled to N replicas, a Kubernetes headless
/// Service).
///
/// Accepted forms:
/// - `tcp://127.0.0.1:7003` — one endpoint (also `ipc://…`, `inproc://…`);
/// - `tcp://10.0.0.5:7003,tcp://10.0.0.6:7003` — a list;
/// - `dns:///plantguide-identification:7001` or `tcp://plantguide-identification:7001` — a name to resolve;
/// - `127.0.0.1:7003` or `localhost:7003` — shorthand for tcp.
public enum RPCTarget: Sendable, Hashable, CustomStringConvertible {
    case endpoints([String])
    case dns(host: String, port: Int)

    /// Parses a target string.
    /// - Throws: ``RPCError`` with INVALID_ARGUMENT saying what is wrong.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !parts.isEmpty else { throw RPCError.invalidArgument("target", .required, "empty target") }
        if parts.count == 1, let (host, port) = try Self.hostAndPort(of: parts[0]), !Self.isIPLiteral(host) {
            self = .dns(host: host, port: port)
            return
        }
        var endpoints: [String] = []
        for part in parts {
            if part.hasPrefix("ipc://") || part.hasPrefix("inproc://") {
                endpoints.append(part)
            } else if let (host, port) = try Self.hostAndPort(of: part) {
                guard Self.isIPLiteral(host) else {
                    throw RPCError.invalidArgument("target", .invalidFormat, "'\(part)': list only IP endpoints, or give a single DNS name")
                }
                endpoints.append(Self.tcpEndpoint(host: host, port: port))
            } else {
                throw RPCError.invalidArgument("target", .invalidFormat, "'\(part)' is not an endpoint (expected tcp://HOST:PORT)")
            }
        }
        self = .endpoints(endpoints)
    }

    public var description: String {
        switch self {
        case .endpoints(let list): list.joined(separator: ",")
        case .dns(let host, let port): "dns:///\(host):\(port)"
        }
    }

    /// "tcp://HOST:PORT" with brackets around IPv6 addresses.
    static func tcpEndpoint(host: String, port: Int) -> String {
        host.contains(":") ? "tcp://[\(host)]:\(port)" : "tcp://\(host):\(port)"
    }

    /// Splits "tcp://host:port", "dns:///host:port" or "host:port"; nil for other transports.
    private static func hostAndPort(of text: String) throws -> (String, Int)? {
        var rest = Substring(text)
        if rest.hasPrefix("dns:///") {
            rest = rest.dropFirst(7)
        } else if rest.hasPrefix("tcp://") {
            rest = rest.dropFirst(6)
        } else if rest.contains("://") {
            return nil
        }
        guard let colon = rest.lastIndex(of: ":") else {
            throw RPCError.invalidArgument("target", .invalidFormat, "'\(text)' has no port (expected HOST:PORT)")
        }
        var host = rest[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard let port = Int(rest[rest.index(after: colon)...]), (1...65_535).contains(port), !host.isEmpty else {
            throw RPCError.invalidArgument("target", .invalidFormat, "'\(text)' needs a host and a port from 1 to 65535")
        }
        return (String(host), port)
    }

    private static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1 || host == "*"
    }
}
