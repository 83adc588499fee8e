/// Where an ``RPCServer`` runs its handlers.
public enum RPCHandlerExecution: Sendable {
    /// Swift's global concurrent pool: right for handlers that compute (decode images, run a model).
    case globalPool
    /// The socket's own I/O thread, with no thread hop per call: right for handlers that only await other
    /// work (database queues, downstream calls) and return. A handler that blocks here stalls every call.
    case ioThread
}
