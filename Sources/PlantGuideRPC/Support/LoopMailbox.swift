import Synchronization

/// What other threads hand to the RPC I/O thread or one of its participants (a server or client loop): messages
/// of the receiver's own kind and, for the thread, jobs of tasks that run on it. Posting wakes the thread (through
/// the mailbox's eventfd) only when it is about to sleep or sleeping, so a busy thread costs its producers a lock
/// and an append, not a system call.
final class LoopMailbox<Message: Sendable>: @unchecked Sendable {
    private struct State {
        var messages: [Message] = []
        var jobs: [UnownedJob] = []
        var sleeping = false
        var closed = false
    }

    /// The descriptor the loop polls alongside its sockets.
    let wake: WakeSignal
    private let state = Mutex(State())

    init() throws {
        wake = try WakeSignal()
    }

    /// Queues `message`; false when the mailbox is closed.
    func post(_ message: Message) -> Bool {
        deliver { $0.messages.append(message) }
    }

    /// Queues a job; false when the mailbox is closed.
    func post(job: UnownedJob) -> Bool {
        deliver { $0.jobs.append(job) }
    }

    /// Moves the queued jobs into `taken` (emptied first). I/O thread only. The two buffers trade places, so a
    /// busy thread allocates nothing here.
    func takeJobs(into taken: inout [UnownedJob]) {
        taken.removeAll(keepingCapacity: true)
        state.withLock { swap(&$0.jobs, &taken) }
    }

    /// Moves the queued messages into `taken` (emptied first). I/O thread only; allocates nothing, as above.
    func takeMessages(into taken: inout [Message]) {
        taken.removeAll(keepingCapacity: true)
        state.withLock { swap(&$0.messages, &taken) }
    }

    /// Marks the loop as going to sleep unless something is queued or it is closed; returns whether it may
    /// block. I/O thread only; call `awake()` after the poll.
    func prepareToSleep() -> Bool {
        state.withLock { state in
            state.sleeping = state.messages.isEmpty && state.jobs.isEmpty && !state.closed
            return state.sleeping
        }
    }

    /// After the poll: clears the sleeping flag and any pending wake-up.
    func awake(signalled: Bool) {
        state.withLock { $0.sleeping = false }
        if signalled { wake.reset() }
    }

    /// Refuses further posts and wakes the loop; returns what was still queued. Idempotent.
    func close() -> (messages: [Message], jobs: [UnownedJob]) {
        let taken = state.withLock { state -> (messages: [Message], jobs: [UnownedJob]) in
            state.closed = true
            defer {
                state.messages.removeAll()
                state.jobs.removeAll()
            }
            return (state.messages, state.jobs)
        }
        wake.signal()
        return taken
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    private func deliver(_ append: (inout State) -> Void) -> Bool {
        let (accepted, mustWake) = state.withLock { state -> (Bool, Bool) in
            guard !state.closed else { return (false, false) }
            append(&state)
            defer { state.sleeping = false }
            return (true, state.sleeping)
        }
        if mustWake { wake.signal() }
        return accepted
    }
}
