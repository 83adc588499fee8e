import SwiftProtobuf

/// A method of a PlantGuide service: its path and its request and response message types.
///
/// The generated `Methods.generated.swift` declares one per method in `Protos/`, so servers register typed
/// handlers and clients make typed calls without spelling paths:
///
/// ```swift
/// let reply = try await client.call(Plantguide_Health_V1_Health.check, .init())
/// ```
public struct RPCMethod<Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message>: AnyRPCMethod {
    /// gRPC's path form, "/package.Service/Method".
    public let path: String
    /// True when the .proto marks the method `(plantguide.rpc.v1.idempotent) = true`: clients may retry it.
    public let isIdempotent: Bool
    /// The method's `google.api.http` binding, for the gateway's HTTP/JSON front; nil when it has none.
    public let http: HTTPBinding?

    /// Describes a method; generated code calls this, and tests may declare methods of their own.
    public init(path: String, isIdempotent: Bool, http: HTTPBinding? = nil) {
        self.path = path
        self.isIdempotent = isIdempotent
        self.http = http
    }

    public var requestType: any SwiftProtobuf.Message.Type { Request.self }
    public var responseType: any SwiftProtobuf.Message.Type { Response.self }
}

/// A method whose message types are known only at run time (for tools that call methods by path).
public protocol AnyRPCMethod: Sendable {
    /// gRPC's path form, "/package.Service/Method".
    var path: String { get }
    /// Whether clients may retry the method on UNAVAILABLE.
    var isIdempotent: Bool { get }
    /// The method's request message type.
    var requestType: any SwiftProtobuf.Message.Type { get }
    /// The method's response message type.
    var responseType: any SwiftProtobuf.Message.Type { get }
    /// The method's HTTP binding, if it has one.
    var http: HTTPBinding? { get }
}

/// A method's HTTP binding from its `google.api.http` annotation (googleapis' google/api/http.proto): the verb, the
/// path template whose `{field.path}` variables fill request fields, which request field the body fills ("*" for
/// the whole request, "" for none: the query string fills the rest), and which response field, if any, is the
/// whole HTTP answer (a photo's bytes).
public struct HTTPBinding: Sendable, Equatable {
    public let verb: String
    public let path: String
    public let body: String
    public let responseBody: String

    public init(verb: String, path: String, body: String, responseBody: String = "") {
        self.verb = verb
        self.path = path
        self.body = body
        self.responseBody = responseBody
    }
}

extension AnyRPCMethod {
    /// The service part of the path: "plantguide.health.v1.Health" for "/plantguide.health.v1.Health/Check".
    public var serviceName: Substring {
        let trimmed = path.dropFirst()
        return trimmed.prefix { $0 != "/" }
    }
}
