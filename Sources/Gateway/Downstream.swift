import Foundation
import PlantGuideProtos
import PlantGuideRPC

/// The gateway's clients of the four services, and how it calls them for a user: the user's id and the trace id
/// in the metadata, the caller's remaining deadline, and a service that does not answer named in the error.
public final class Downstream: Sendable {
    public let identification: RPCClient
    public let caredata: RPCClient
    public let collection: RPCClient
    public let scheduling: RPCClient

    /// The four services' clients as given: ZeroMQ clients in the service, ``RPCClient/init(inProcess:)`` clients
    /// of the services' own handlers in tests, which then need no process. Each must have ``interceptors``.
    public init(identification: RPCClient, caredata: RPCClient, collection: RPCClient, scheduling: RPCClient) {
        self.identification = identification
        self.caredata = caredata
        self.collection = collection
        self.scheduling = scheduling
    }

    /// Clients of the services at the configuration's targets, over ZeroMQ.
    /// - Throws: when a target is malformed.
    public convenience init(configuration: GatewayConfiguration) throws {
        let client = Self.clientConfiguration(configuration)
        func connect(_ target: String) throws -> RPCClient {
            try RPCClient(target: target, configuration: client, interceptors: Self.interceptors)
        }
        try self.init(identification: connect(configuration.identification), caredata: connect(configuration.caredata),
                      collection: connect(configuration.collection), scheduling: connect(configuration.scheduling))
    }

    /// What the gateway's calls to the services pass through: tracing, then the caller's id, trace id and deadline.
    /// A client given to ``init(identification:caredata:collection:scheduling:)`` needs them too.
    public static let interceptors: [any RPCClientInterceptor] = [ClientTracingInterceptor(), CallerMetadataInterceptor()]

    /// How the gateway's clients reach the services: quick to find a service again, quick to give up on one gone.
    static func clientConfiguration(_ configuration: GatewayConfiguration) -> RPCClientConfiguration {
        var client = RPCClientConfiguration()
        client.curve = configuration.curve
        // A service back from a restart is found within half a second: reconnecting that often to a service that
        // is down costs nothing next to the calls failing meanwhile (the default backs off to 2 s).
        client.maxReconnectInterval = .milliseconds(500)
        // A service host cut off from the network drops packets without a reset: heartbeats every half second
        // notice it within 1.5 s, after which its calls fail at once (503) instead of waiting for their deadline;
        // and a connection attempt that gets no answer is given up after a second, so that the host is found
        // again within about a second of coming back.
        client.heartbeatInterval = .milliseconds(500)
        client.connectTimeout = .seconds(1)
        // While a service is known to be unreachable its calls fail at once, rather than after up to four
        // attempts' back-off, so that the app gets its 503 and Retry-After in a millisecond.
        client.retriesWhileUnreachable = false
        return client
    }

    public func close() {
        for client in [identification, caredata, collection, scheduling] { client.close() }
    }

    /// The services by the names the status and errors use.
    var named: [(name: String, client: RPCClient)] {
        [("identification", identification), ("caredata", caredata), ("collection", collection), ("scheduling", scheduling)]
    }

    /// Calls `method` on `client` as `user`, within what is left of `user`'s deadline (the metadata is written by
    /// ``CallerMetadataInterceptor``, which every client of the gateway has).
    /// - Throws: the service's ``RPCError``; UNAVAILABLE and DEADLINE_EXCEEDED carry an ErrorInfo naming the
    ///   service (metadata "service").
    func call<Request, Response>(
        _ client: RPCClient, _ method: RPCMethod<Request, Response>, _ request: Request, as user: Caller
    ) async throws -> Response {
        do {
            return try await Caller.$current.withValue(user) { try await client.call(method, request) }
        } catch let error as RPCError where error.code == .unavailable || error.code == .deadlineExceeded {
            let service = named.first { $0.client === client }?.name ?? "a service"
            var named = error
            named.message = "\(service): \(error.message)"
            if named.details.info == nil {
                named = named.reason(RPCErrorReason.upstreamUnavailable, domain: GatewayErrorReason.domain, metadata: ["service": service])
            } else {
                named.details.info?.metadata["service"] = service
            }
            if named.code == .unavailable && named.details.retryDelay == nil { named = named.retry(after: .seconds(1)) }
            throw named
        }
    }
}

/// Who a gateway call is for, and until when.
struct Caller: Sendable {
    /// The caller a gateway method serves: set by ``CallerAuthenticationInterceptor`` for the RPC and HTTP fronts'
    /// handlers, and by ``Downstream/call(_:_:_:as:)`` for each downstream call (whose metadata
    /// ``CallerMetadataInterceptor`` writes from it).
    @TaskLocal static var current: Caller?

    var id: String
    var deadline: ContinuousClock.Instant
    var traceID: String?
    /// The id of the token the call came with (its session), when it came with one.
    var tokenID: String?
}

/// The gateway's ErrorInfo domain.
public enum GatewayErrorReason {
    public static let domain = "plantguide-gateway"
    /// A change made with a browser's session cookie from another site's page (or with no Origin at all).
    public static let crossSiteRequest = "CROSS_SITE_REQUEST"
}
