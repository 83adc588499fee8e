import Logging
import PlantGuideRPCCore
import PostgresNIO

/// What a store's caller learns when the database fails: that it is unavailable (retry), that the transaction
/// conflicted with another (retry), or that it failed; never the database's own words, which go to the log.
///
/// A storage error, not an RPC one: it reaches an RPC caller as UNAVAILABLE, ABORTED or INTERNAL through
/// ``rpcError``, at the edge where a handler's error becomes a status.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible, RPCStatusConvertible {
    public enum Kind: Sendable, Equatable {
        /// The database cannot be reached, or is refusing calls for now.
        case unavailable
        /// A serialization failure or deadlock: the transaction can simply be run again.
        case conflict
        /// The database refused the statement, or the driver failed otherwise.
        case failed
    }

    public let kind: Kind
    /// What the caller may be told.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public static var unavailable: StorageError { StorageError(.unavailable, "the database is unavailable; retry shortly") }

    public var description: String { message }

    public var rpcError: RPCError {
        switch kind {
        case .unavailable: RPCError(.unavailable, message)
        case .conflict: RPCError(.aborted, message)
        case .failed: RPCError(.internal, message)
        }
    }

    /// Whether `error` says the server is not taking calls at all: the connection was refused (nothing listens), or
    /// the server answered that it is shutting down or starting up (57P0x) or full (53300). Not a timeout, nor a
    /// connection that broke: a busy machine has those too, and the probe judges them by the server's silence.
    static func isRefusal(_ error: any Error) -> Bool {
        if let error = error as? PSQLError {
            let state = error.serverInfo?[.sqlState] ?? ""
            return error.code == .server && (state.hasPrefix("57P") || state == "53300")
                || (error.code == .connectionError && isConnectionRefused(error.underlying))
        }
        return isConnectionRefused(error)
    }

    private static func isConnectionRefused(_ error: (any Error)?) -> Bool {
        guard let error else { return false }
        if let io = error as? IOError { return io.errnoCode == ECONNREFUSED }
        return String(reflecting: error).contains("connectionRefused") || String(describing: error).contains("Connection refused")
    }

    /// The caller's error for a driver error; `noteRefusal` is told when the server refused (``isRefusal(_:)``), so
    /// that the process's stores fail at once until it answers again. Any other failure to reach it fails this call
    /// only: whether the server is gone is the probe's judgement.
    static func translate(_ error: any Error, logger: Logger, noteRefusal: () -> Void) -> any Error {
        if isRefusal(error) {
            logger.warning("PostgreSQL refused the call", metadata: ["error": "\(describe(error))"])
            noteRefusal()
            return unavailable
        }
        guard let error = error as? PSQLError else {
            // Not the driver's: the network under it (NIO's errors) or the pool.
            logger.warning("PostgreSQL could not be reached", metadata: ["error": "\(String(reflecting: error))"])
            return unavailable
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            // 08: connection exceptions.
            if state.hasPrefix("08") {
                logger.warning("PostgreSQL's connection failed", metadata: ["error": "\(describe(error))"])
                return unavailable
            }
            // Serialization failures and deadlocks: the transaction can simply be run again.
            if state == "40001" || state == "40P01" { return StorageError(.conflict, "the change conflicted with another; retry") }
            logger.error("PostgreSQL refused a statement", metadata: ["error": "\(describe(error))"])
            return StorageError(.failed, "the database refused the change")
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown,
             .failedToAddSSLHandler, .sslUnsupported:
            logger.warning("PostgreSQL's connection failed", metadata: ["error": "\(describe(error))"])
            return unavailable
        default:
            logger.error("PostgreSQL driver error", metadata: ["error": "\(describe(error))"])
            return StorageError(.failed, "the database could not be used")
        }
    }

    /// What a log line says of a driver error: its code, and the server's SQLSTATE and message when it sent one.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(reflecting: error) }
        guard let state = error.serverInfo?[.sqlState] else { return String(reflecting: error.code) }
        return "\(state): \(error.serverInfo?[.message] ?? "")"
    }
}
