import PlantGuideProtos

/// A failed call: what clients throw and what handlers throw to choose the status a caller sees.
///
/// Handlers throw `RPCError(.notFound, "no plant with id p1")`, or a domain error that is ``RPCStatusConvertible``;
/// any other error thrown by a handler reaches the caller as INTERNAL with a message that names nothing of the
/// server's insides (no SQL, no file paths), and is logged with the call's request id.
public struct RPCError: Error, Sendable, CustomStringConvertible {
    /// gRPC's status code.
    public var code: Code
    /// A developer-facing message saying what went wrong.
    public var message: String
    /// The underlying error, when there is one (never sent on the wire).
    public var cause: (any Error & Sendable)?
    /// Field violations, a reason code and a retry delay, sent as the status's details.
    public var details = RPCErrorDetails()
    /// The answer's trailing metadata, when the server answered (e.g. `traceresponse`); empty otherwise. Never sent:
    /// a server's trailing metadata is its own.
    public var trailingMetadata: [String: String] = [:]

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { "\(code): \(message)" }

    /// gRPC's status codes, with the same numbers. A struct rather than an enum so that it can grow.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The wire number (0–16).
        public let rawValue: Int

        public init?(rawValue: Int) {
            guard (0...16).contains(rawValue) else { return nil }
            self.rawValue = rawValue
        }

        private init(_ rawValue: Int) { self.rawValue = rawValue }

        public static let ok = Code(0)
        public static let cancelled = Code(1)
        public static let unknown = Code(2)
        public static let invalidArgument = Code(3)
        public static let deadlineExceeded = Code(4)
        public static let notFound = Code(5)
        public static let alreadyExists = Code(6)
        public static let permissionDenied = Code(7)
        public static let resourceExhausted = Code(8)
        public static let failedPrecondition = Code(9)
        public static let aborted = Code(10)
        public static let outOfRange = Code(11)
        public static let unimplemented = Code(12)
        public static let `internal` = Code(13)
        public static let unavailable = Code(14)
        public static let dataLoss = Code(15)
        public static let unauthenticated = Code(16)

        /// The upper-case name gRPC uses ("NOT_FOUND").
        public var name: String { Self.names[rawValue] }

        public var description: String { name }

        private static let names = [
            "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
            "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
            "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
        ]
    }
}

/// An error that knows the status it reaches a caller with: the domain errors of the service libraries
/// (`CollectionError`, `SchedulingError`…) conform, so that their handlers simply throw them.
public protocol RPCStatusConvertible: Error {
    /// The status (code and message) a caller sees.
    var rpcError: RPCError { get }
}

extension RPCError {
    /// The wire status for this error.
    package var wireStatus: Plantguide_Rpc_V1_Status {
        var status = Plantguide_Rpc_V1_Status()
        status.code = Plantguide_Rpc_V1_StatusCode(rawValue: code.rawValue) ?? .unknown
        status.message = message
        status.details = details.wire
        return status
    }

    /// The error a wire status stands for (an unknown number reads as UNKNOWN).
    package init(wireStatus status: Plantguide_Rpc_V1_Status) {
        self.init(Code(rawValue: status.code.rawValue) ?? .unknown, status.message)
        details = RPCErrorDetails(wire: status.details)
    }

    /// What a caller reads of an error that escaped the service's own statuses.
    package static let internalMessage = "internal error; the service's log has the details under this call's request id"

    /// Maps anything a handler threw to the status the caller sees.
    public init(mapping error: any Error) {
        switch error {
        case let error as RPCError:
            self = error
        case let error as any RPCStatusConvertible:
            self = error.rpcError
        case is CancellationError:
            self.init(.cancelled, "the call was cancelled")
        default:
            self.init(.internal, Self.internalMessage)
        }
    }
}
