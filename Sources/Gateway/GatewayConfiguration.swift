import Foundation
import PlantGuideRPC

/// Configuration of plantguide-gateway: its data folder and where the services are (RPC targets: an endpoint, a
/// comma-separated list, or dns:///name:port).
public struct GatewayConfiguration: Sendable {
    /// Folder holding the gateway's SQLite database (accounts, pending work).
    public var dataDirectory: URL
    public var identification = "tcp://127.0.0.1:7001"
    public var caredata = "tcp://127.0.0.1:7002"
    public var collection = "tcp://127.0.0.1:7003"
    public var scheduling = "tcp://127.0.0.1:7004"
    /// Scheduling's reminder PUB endpoints (comma-separated, one per scheduling instance, or a DNS name whose every
    /// address is one), relayed to the HTTP front's reminder streams.
    public var reminders = "tcp://127.0.0.1:7014"
    /// How often interrupted deletions and care lookups are retried. Default 2 s.
    public var retryInterval: Duration = .seconds(2)
    /// Calls a second each token may make (bursts of twice that); 0 for no limit. Default 50.
    public var callsPerSecond = 50
    /// Whether anyone may open an account (CreateAccount). Default open.
    public var signUp = SignUpPolicy.open
    /// The gateway's origin as browsers reach it (`https://plants.example.org`) when a proxy stands in front: its
    /// scheme decides the session cookie's `Secure` and `__Host-` prefix, and it is the one `Origin` that cookie
    /// changes are accepted from. Nil: the request's own `Host`, and cookies without `Secure`.
    public var publicOrigin: String?
    /// Proxies in front of the HTTP front whose `X-Forwarded-For` names the client, whose failed sign-ins then count
    /// against that address (``ClientAddresses``). Default none: the connection's peer is the client.
    public var clientAddresses = ClientAddresses()
    /// CurveZMQ towards the services (and scheduling's reminders); nil for plain TCP.
    public var curve: CurveClientSecurity?

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }
}

/// Who may open an account with CreateAccount (`POST /v1/accounts`).
public enum SignUpPolicy: String, Sendable, CaseIterable {
    /// Anyone who can reach the gateway.
    case open
    /// Whoever has an invitation code (`plantguide-gateway invites add`); each code opens one account.
    case invite
    /// No one: an operator adds users (`plantguide-gateway users add`).
    case closed
}
