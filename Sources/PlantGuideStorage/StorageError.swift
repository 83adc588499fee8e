import Logging
import PlantGuideRPC
import PostgresNIO

/// What a caller learns when the database fails: UNAVAILABLE while it cannot be reached (retry), ABORTED for a
/// transaction the server gave up on (retry), INTERNAL otherwise; never the database's own words, which go to
/// the log.
public enum StorageError {
    public static var unavailable: RPCError { RPCError(.unavailable, "the database is unavailable; retry shortly") }

    /// Whether `error` says the server is not taking connections at all: the connection was refused (nothing
    /// listens), or the server answered that it is shutting down or starting up. Not a timeout: a busy machine
    /// times out too.
    static func isRefusal(_ error: any Error) -> Bool {
        if let error = error as? PSQLError {
            let state = error.serverInfo?[.sqlState] ?? ""
            return error.code == .server && state.hasPrefix("57P")
                || (error.code == .connectionError && isConnectionRefused(error.underlying))
        }
        return isConnectionRefused(error)
    }

    private static func isConnectionRefused(_ error: (any Error)?) -> Bool {
        guard let error else { return false }
        if let io = error as? IOError { return io.errnoCode == ECONNREFUSED }
        return String(reflecting: error).contains("connectionRefused") || String(describing: error).contains("Connection refused")
    }

    /// The caller's error for a driver error; `markUnreachable` is told when the server is gone.
    static func translate(_ error: any Error, logger: Logger, markUnreachable: () -> Void) -> any Error {
        guard let error = error as? PSQLError else {
            // Not the driver's: the network under it (NIO's errors) or the pool.
            logger.warning("PostgreSQL could not be reached", metadata: ["error": "\(String(reflecting: error))"])
            markUnreachable()
            return unavailable
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            // 08: connection exceptions; 57P0x: the server shutting down or starting; 53300: too many connections.
            if state.hasPrefix("08") || state.hasPrefix("57P") || state == "53300" {
                logger.warning("PostgreSQL is not taking calls", metadata: [
                    "sqlstate": "\(state)", "message": "\(error.serverInfo?[.message] ?? "")",
                ])
                markUnreachable()
                return unavailable
            }
            // Serialization failures and deadlocks: the transaction can simply be run again.
            if state == "40001" || state == "40P01" { return RPCError(.aborted, "the change conflicted with another; retry") }
            logger.error("PostgreSQL refused a statement", metadata: [
                "sqlstate": "\(state)", "message": "\(error.serverInfo?[.message] ?? "")",
            ])
            return RPCError(.internal, "the database refused the change")
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown,
             .failedToAddSSLHandler, .sslUnsupported:
            logger.warning("PostgreSQL's connection failed", metadata: ["error": "\(String(reflecting: error.code))"])
            markUnreachable()
            return unavailable
        default:
            logger.error("PostgreSQL driver error", metadata: ["error": "\(String(reflecting: error.code))"])
            return RPCError(.internal, "the database could not be used")
        }
    }
}
