import PlantGuideRPCCore

/// gRPC status codes to HTTP statuses, as googleapis' google/rpc/code.proto and grpc-gateway map them.
enum HTTPStatusMapping {
    static func status(for code: RPCError.Code) -> Int {
        switch code {
        case .ok: 200
        case .cancelled: 499
        case .invalidArgument, .failedPrecondition, .outOfRange: 400
        case .unauthenticated: 401
        case .permissionDenied: 403
        case .notFound: 404
        case .alreadyExists, .aborted: 409
        case .resourceExhausted: 429
        case .unimplemented: 501
        case .unavailable: 503
        case .deadlineExceeded: 504
        default: 500
        }
    }
}
