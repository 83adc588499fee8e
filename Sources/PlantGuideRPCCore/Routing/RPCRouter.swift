import Foundation
import PlantGuideProtos
import SwiftProtobuf

/// A set of methods a server hosts; each service library provides one.
///
/// ```swift
/// struct CollectionRPCService: RPCService {
///     func registerMethods(with router: inout RPCRouter) {
///         router.register(Plantguide_Collection_V1_CollectionService.getPlant) { request, context in
///             try await store.plant(id: request.id, owner: context.requireUserID())
///         }
///     }
/// }
/// ```
public protocol RPCService: Sendable {
    /// Adds the service's handlers to `router`.
    func registerMethods(with router: inout RPCRouter)

    /// Whether the service can do its work now (its database answers, say). While a hosted service is not ready,
    /// Health/Check answers NOT_SERVING, so that load balancers and readiness probes turn away. Cheap: probes
    /// read it on the server's I/O thread.
    var isReady: Bool { get }

    /// What the service's own methods pass through, inside the server's interceptors (the gateway's caller
    /// authentication): wherever the service is hosted, its methods are never reached without them.
    var interceptors: [any RPCServerInterceptor] { get }

    /// Where its handlers run, by what they do: `.ioThread` for a service whose handlers only await (a database
    /// queue, HTTP, other services) and move any heavy step onto a pool of their own; `.globalPool` for one whose
    /// handlers compute (a model, image decoding). Nil leaves it to the server. A method registered with its own
    /// placement keeps it.
    var handlerExecution: RPCHandlerExecution? { get }
}

extension RPCService {
    public var isReady: Bool { true }

    public var interceptors: [any RPCServerInterceptor] { [] }

    public var handlerExecution: RPCHandlerExecution? { nil }
}

/// Maps method paths to typed handlers.
public struct RPCRouter: Sendable {
    /// A handler with its message types erased: payload bytes in, the response (its bytes, trailing metadata) out.
    package typealias ErasedHandler = @Sendable (Data, RPCServerContext) async throws -> RPCServerResponse

    /// A probe's handler: synchronous, cheap, answered on the server's I/O thread ahead of admission.
    package typealias Probe = @Sendable (Data) throws -> Data

    /// A method's handler and, when the method chose, where it runs.
    package struct Route: Sendable {
        package let handler: ErasedHandler
        /// Overrides the server's handler execution for this method when set.
        package let execution: RPCHandlerExecution?
    }

    package private(set) var routes: [String: Route] = [:]
    package private(set) var probes: [String: Probe] = [:]
    /// The fully qualified names of the services with at least one registered method (for health checks).
    public private(set) var serviceNames: Set<String> = []

    public init() {}

    /// Registers `handler` for `method`, replacing any earlier handler of the same path.
    ///
    /// The payload is decoded before the handler runs (INVALID_ARGUMENT if it does not parse as `Request`),
    /// and what the handler throws becomes the call's status (see ``RPCError``).
    /// - Parameter execution: where the handler runs, whatever the server's handler execution;
    ///   nil follows the server. `.ioThread` suits a cheap method that only awaits (a read of one row, a cache
    ///   hit): it is answered with no thread hand-off. Never for one that computes or blocks.
    public mutating func register<Request, Response>(
        _ method: RPCMethod<Request, Response>, runsOn execution: RPCHandlerExecution? = nil,
        handler: @escaping @Sendable (Request, RPCServerContext) async throws -> Response
    ) {
        let erased: ErasedHandler = { payload, context in
            let response = try await handler(Self.decode(Request.self, from: payload), context)
            return RPCServerResponse(payload: try response.serializedBytes())
        }
        routes[method.path] = Route(handler: erased, execution: execution)
        serviceNames.insert(String(method.serviceName))
    }

    /// Registers `handler` for `method` as ``register(_:runsOn:handler:)`` does, for a handler that returns its
    /// response already encoded (``EncodedMessage``): the server sends those bytes as they are.
    public mutating func registerEncoded<Request, Response>(
        _ method: RPCMethod<Request, Response>, runsOn execution: RPCHandlerExecution? = nil,
        handler: @escaping @Sendable (Request, RPCServerContext) async throws -> EncodedMessage<Response>
    ) {
        let erased: ErasedHandler = { payload, context in
            RPCServerResponse(payload: try await handler(Self.decode(Request.self, from: payload), context).bytes)
        }
        routes[method.path] = Route(handler: erased, execution: execution)
        serviceNames.insert(String(method.serviceName))
    }

    /// Registers a probe: a method answered at once on the server's I/O thread, never queued behind other calls
    /// (health checks and metrics, which orchestrators and scrapers must get even when the service is saturated).
    /// The handler must be cheap and must not block.
    package mutating func registerProbe<Request, Response>(
        _ method: RPCMethod<Request, Response>, handler: @escaping @Sendable (Request) throws -> Response
    ) {
        probes[method.path] = { payload in try handler(Self.decode(Request.self, from: payload)).serializedBytes() }
        routes[method.path] = nil
        serviceNames.insert(String(method.serviceName))
    }

    /// Registers every method of `service`, behind the service's own interceptors, where the service places them.
    public mutating func register(_ service: any RPCService) {
        var own = RPCRouter()
        service.registerMethods(with: &own)
        own = own.intercepted(by: service.interceptors)
        for (path, route) in own.routes {
            routes[path] = Route(handler: route.handler, execution: route.execution ?? service.handlerExecution)
            probes[path] = nil
        }
        for (path, probe) in own.probes {
            probes[path] = probe
            routes[path] = nil
        }
        serviceNames.formUnion(own.serviceNames)
    }

    package func route(for path: String) -> Route? { routes[path] }

    /// A request's payload as `Request`; INVALID_ARGUMENT when it does not parse. Synchronous, so that what it
    /// needs is not kept in the handler task's frame.
    private static func decode<Request: Message>(_ type: Request.Type, from payload: Data) throws -> Request {
        do {
            return try Request(serializedBytes: payload)
        } catch {
            throw RPCError.invalidArgument("payload", .invalidFormat, "payload is not a valid \(Request.protoMessageName) message")
        }
    }

    /// Replaces every method's handler by `wrap` of it (probes are left alone).
    mutating func wrapHandlers(_ wrap: (@escaping ErasedHandler) -> ErasedHandler) {
        routes = routes.mapValues { Route(handler: wrap($0.handler), execution: $0.execution) }
    }

    package func probe(for path: String) -> Probe? { probes[path] }
}
