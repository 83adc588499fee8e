import Foundation
import PlantGuideProtos
import SwiftProtobuf

/// The machine-readable parts of an ``RPCError`` (gRPC's rich error model, `plantguide/rpc/v1/error_details.proto`):
/// which fields were wrong, why the call failed as a stable code, and when to try again.
public struct RPCErrorDetails: Sendable, Equatable {
    /// For INVALID_ARGUMENT: the request fields that were wrong.
    public var fieldViolations: [FieldViolation] = []
    /// A stable reason code and the service that chose it (`ErrorInfo`).
    public var info: Info?
    /// How long to wait before sending the same call again (`RetryInfo`); nil when retrying cannot help.
    public var retryDelay: Duration?

    public init(fieldViolations: [FieldViolation] = [], info: Info? = nil, retryDelay: Duration? = nil) {
        self.fieldViolations = fieldViolations
        self.info = info
        self.retryDelay = retryDelay
    }

    /// One wrong request field (`BadRequest.FieldViolation`).
    public struct FieldViolation: Sendable, Equatable {
        /// The field's path in snake_case: "images[2].data", "update_mask.paths[0]".
        public var field: String
        public var reason: Reason
        public var description: String

        public init(field: String, reason: Reason, description: String) {
            self.field = field
            self.reason = reason
            self.description = description
        }

        /// Why a field was refused, as a stable code a program can switch on.
        public struct Reason: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            /// Missing or empty, but needed.
            public static let required = Reason(rawValue: "REQUIRED")
            /// A number or date outside the range the contract states.
            public static let outOfRange = Reason(rawValue: "OUT_OF_RANGE")
            /// Text or a list longer than its limit.
            public static let tooLong = Reason(rawValue: "TOO_LONG")
            /// Bytes or text in the wrong format (a date that is not YYYY-MM-DD, a photo that does not decode).
            public static let invalidFormat = Reason(rawValue: "INVALID_FORMAT")
            /// An enum number, time zone, path or name the service does not know.
            public static let unknownValue = Reason(rawValue: "UNKNOWN_VALUE")
            /// A value that appears twice where each must be unique.
            public static let notUnique = Reason(rawValue: "NOT_UNIQUE")
            /// A value that contradicts another field of the request (a range whose end is before its start).
            public static let inconsistent = Reason(rawValue: "INCONSISTENT")
            /// A page token this service did not issue for this query.
            public static let invalidToken = Reason(rawValue: "INVALID_TOKEN")
            /// A field that may not be changed.
            public static let immutable = Reason(rawValue: "IMMUTABLE")
        }
    }

    /// A stable reason code, the domain that defines it, and facts about the error (`ErrorInfo`).
    public struct Info: Sendable, Equatable {
        public var reason: String
        public var domain: String
        public var metadata: [String: String]

        public init(reason: String, domain: String, metadata: [String: String] = [:]) {
            self.reason = reason
            self.domain = domain
            self.metadata = metadata
        }
    }

    /// True when there is nothing to send.
    public var isEmpty: Bool { fieldViolations.isEmpty && info == nil && retryDelay == nil }
}

extension RPCError {
    /// INVALID_ARGUMENT for one wrong request field: the message is `description`, and the details carry the
    /// field violation a program reads. Every INVALID_ARGUMENT a service sends is made this way.
    public static func invalidArgument(_ field: String, _ reason: RPCErrorDetails.FieldViolation.Reason,
                                       _ description: String) -> RPCError {
        var error = RPCError(.invalidArgument, description)
        error.details.fieldViolations = [.init(field: field, reason: reason, description: description)]
        return error
    }

    /// This error with a stable reason code (`ErrorInfo`).
    public func reason(_ reason: String, domain: String, metadata: [String: String] = [:]) -> RPCError {
        var error = self
        error.details.info = .init(reason: reason, domain: domain, metadata: metadata)
        return error
    }

    /// This error with the time after which the same call may succeed (`RetryInfo`).
    public func retry(after delay: Duration) -> RPCError {
        var error = self
        error.details.retryDelay = max(delay, .zero)
        return error
    }

    /// The stable reason code of ``RPCErrorDetails/info``, if any.
    public var reasonCode: String? { details.info?.reason }
}

/// The reason codes of the transport itself (domain ``RPCErrorReason/transportDomain``).
public enum RPCErrorReason {
    public static let transportDomain = "plantguide-rpc"
    /// The server's admission queue is full.
    public static let serverQueueFull = "SERVER_QUEUE_FULL"
    /// A message or its metadata is over the server's size limits; sending it again cannot succeed.
    public static let requestTooLarge = "REQUEST_TOO_LARGE"
    /// The server is shutting down.
    public static let shuttingDown = "SHUTTING_DOWN"
    /// An external service (Pl@ntNet, Trefle) could not be reached.
    public static let upstreamUnavailable = "UPSTREAM_UNAVAILABLE"
    /// A per-caller rate limit.
    public static let rateLimited = "RATE_LIMITED"
}

extension RPCErrorDetails {
    package static let typePrefix = "type.googleapis.com/"

    /// The details packed as `google.protobuf.Any`s, in the order BadRequest, ErrorInfo, RetryInfo.
    package var wire: [Google_Protobuf_Any] {
        var packed: [Google_Protobuf_Any] = []
        if !fieldViolations.isEmpty {
            let message = Plantguide_Rpc_V1_BadRequest.with {
                $0.fieldViolations = fieldViolations.map { violation in
                    .with {
                        $0.field = violation.field
                        $0.description_p = violation.description
                        $0.reason = violation.reason.rawValue
                    }
                }
            }
            packed.append(Self.pack(message))
        }
        if let info {
            packed.append(Self.pack(Plantguide_Rpc_V1_ErrorInfo.with {
                $0.reason = info.reason
                $0.domain = info.domain
                $0.metadata = info.metadata
            }))
        }
        if let retryDelay {
            let (seconds, attoseconds) = retryDelay.components
            packed.append(Self.pack(Plantguide_Rpc_V1_RetryInfo.with {
                $0.retryDelay = .with {
                    $0.seconds = seconds
                    $0.nanos = Int32(attoseconds / 1_000_000_000)
                }
            }))
        }
        return packed
    }

    /// The details a wire status carries; ones this version does not know are skipped.
    package init(wire details: [Google_Protobuf_Any]) {
        self.init()
        for detail in details {
            switch detail.typeURL {
            case Self.typeURL(Plantguide_Rpc_V1_BadRequest.self):
                guard let message = try? Plantguide_Rpc_V1_BadRequest(serializedBytes: detail.value) else { continue }
                fieldViolations += message.fieldViolations.map {
                    FieldViolation(field: $0.field, reason: .init(rawValue: $0.reason), description: $0.description_p)
                }
            case Self.typeURL(Plantguide_Rpc_V1_ErrorInfo.self):
                guard let message = try? Plantguide_Rpc_V1_ErrorInfo(serializedBytes: detail.value) else { continue }
                info = Info(reason: message.reason, domain: message.domain, metadata: message.metadata)
            case Self.typeURL(Plantguide_Rpc_V1_RetryInfo.self):
                guard let message = try? Plantguide_Rpc_V1_RetryInfo(serializedBytes: detail.value) else { continue }
                retryDelay = .seconds(message.retryDelay.seconds) + .nanoseconds(Int64(message.retryDelay.nanos))
            default:
                continue
            }
        }
    }

    package static func typeURL<M: SwiftProtobuf.Message>(_: M.Type) -> String { typePrefix + M.protoMessageName }

    private static func pack<M: SwiftProtobuf.Message>(_ message: M) -> Google_Protobuf_Any {
        var any = Google_Protobuf_Any()
        any.typeURL = typeURL(M.self)
        any.value = (try? message.serializedData()) ?? Data()
        return any
    }
}

extension RPCError {
    /// UNIMPLEMENTED for a method this server does not serve; the name is quoted, so an empty one reads as ''.
    package static func unknownMethod(_ path: String) -> RPCError {
        RPCError(.unimplemented, "unknown method '\(path)'")
    }

    /// UNAVAILABLE while the server shuts down: another instance (or this one, restarted) can answer in a second.
    package static func shuttingDown(_ message: String) -> RPCError {
        RPCError(.unavailable, message)
            .reason(RPCErrorReason.shuttingDown, domain: RPCErrorReason.transportDomain)
            .retry(after: .seconds(1))
    }
}
