import Synchronization

struct TimedOut: Error {}

/// `operation`, or `TimedOut` once `limit` has passed on the awake clock (``ProcessLateness``: time this process was
/// too busy to run does not count) or `giveUp` says so (looked at every 100 ms); the operation is then cancelled, and
/// not waited for: a driver call that ignores cancellation (a pool lease on a server that went away mid-call) must
/// not hold its caller past the limit. It finishes or fails in the background.
func withTimeout<Result: Sendable>(
    _ limit: Duration, giveUpWhen giveUp: @Sendable @escaping () -> Bool = { false }, _ operation: @Sendable @escaping () async throws -> Result
) async throws -> Result {
    let race = FirstResult<Result>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
            let work = Task {
                do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
            }
            let timer = Task {
                let awake = ProcessLateness.shared
                let end = awake.now() + limit
                while awake.now() < end && !Task.isCancelled {
                    try? await Task.sleep(for: max(.zero, min(.milliseconds(100), end - awake.now())))
                    if giveUp() { break }
                }
                if !Task.isCancelled { race.finish(.failure(TimedOut())) }
            }
            race.onFinish {
                timer.cancel()
                work.cancel()
            }
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The first of several outcomes, handed to one continuation; later ones are dropped.
private final class FirstResult<Result: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result, any Error>?
        /// An outcome that came before the continuation was given (cancellation before the start).
        var early: Swift.Result<Result, any Error>?
        var finished = false
        var onFinish: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<Result, any Error>) {
        let early = state.withLock { state -> Swift.Result<Result, any Error>? in
            guard let early = state.early else {
                state.continuation = continuation
                return nil
            }
            return early
        }
        if let early { continuation.resume(with: early) }
    }

    func onFinish(_ action: @escaping @Sendable () -> Void) {
        let finished = state.withLock { state in
            if !state.finished { state.onFinish = action }
            return state.finished
        }
        if finished { action() }
    }

    func finish(_ outcome: Swift.Result<Result, any Error>) {
        let (continuation, action) = state.withLock { state -> (CheckedContinuation<Result, any Error>?, (@Sendable () -> Void)?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            guard let continuation = state.continuation else {
                state.early = outcome
                return (nil, state.onFinish)
            }
            state.continuation = nil
            return (continuation, state.onFinish)
        }
        continuation?.resume(with: outcome)
        action?()
    }
}
