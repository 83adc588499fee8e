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

    /// Describes a method; generated code calls this, and tests may declare methods of their own.
    public init(path: String, isIdempotent: Bool) {
        self.path = path
        self.isIdempotent = isIdempotent
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
}

extension AnyRPCMethod {
    /// The service part of the path: "plantguide.health.v1.Health" for "/plantguide.health.v1.Health/Check".
    public var serviceName: Substring {
        let trimmed = path.dropFirst()
        return trimmed.prefix { $0 != "/" }
    }
}
