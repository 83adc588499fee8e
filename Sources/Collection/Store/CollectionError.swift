import PlantGuideRPC
/// A collection request that cannot be done, with the status it maps to.
public struct CollectionError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable { case invalidArgument, notFound, alreadyExists, resourceExhausted }
    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension CollectionError: RPCStatusConvertible {
    public var rpcError: RPCError {
        let status: RPCError.Code = switch code {
        case .invalidArgument: .invalidArgument
        case .notFound: .notFound
        case .alreadyExists: .alreadyExists
        case .resourceExhausted: .resourceExhausted
        }
        return RPCError(status, message)
    }
}
