import Foundation
import Synchronization

/// What the last requests to a provider found, for the status screen: whether it answered, and the last failure.
/// Learnt from the requests the service makes anyway; nothing is sent just to find out.
public struct ProviderReachability: Sendable, Equatable {
    /// The state the last finished request left.
    public enum State: Sendable, Equatable {
        /// No credentials: the provider is never asked.
        case notConfigured
        /// Configured, but no request has finished since the service started.
        case unknown
        /// The last request got an answer (a 404 for an unknown species counts: the provider answered).
        case reachable
        /// The last request found the provider down, too slow or answering nonsense.
        case unreachable
        /// The last request was refused with 429 (or our own limiter would have waited too long).
        case rateLimited
        /// The last request's token was refused (401/403).
        case unauthorized
    }

    public var state: State
    public var lastSuccessAt: Date?
    public var lastFailureAt: Date?
    /// The last failure's message, "" when there was none.
    public var lastError = ""

    public init(state: State) {
        self.state = state
    }
}

/// Trefle's reachability (the status message still carries its name).
public typealias TrefleReachability = ProviderReachability

/// Records the outcome of each request to a provider. Thread-safe; cheap enough for every request.
final class ProviderReachabilityRecorder: Sendable {
    private let record: Mutex<ProviderReachability>

    init(configured: Bool) {
        record = Mutex(ProviderReachability(state: configured ? .unknown : .notConfigured))
    }

    var current: ProviderReachability { record.withLock { $0 } }

    func answered(at time: Date = Date()) {
        record.withLock {
            $0.state = .reachable
            $0.lastSuccessAt = time
        }
    }

    func failed(_ error: ProviderError, at time: Date = Date()) {
        let state: ProviderReachability.State
        switch error.code {
        case .notConfigured: return
        case .notFound: return answered(at: time)
        case .rateLimited: state = .rateLimited
        case .unauthorized: state = .unauthorized
        case .unavailable, .timedOut, .badResponse: state = .unreachable
        }
        record.withLock {
            $0.state = state
            $0.lastFailureAt = time
            $0.lastError = error.message
        }
    }
}
