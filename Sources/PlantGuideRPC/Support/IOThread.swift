import CZeroMQ
import Foundation
import PlantGuideThreads
import Synchronization

/// The process's RPC I/O thread: it owns the sockets of every ``RPCServer`` and ``RPCClient`` of the process,
/// waits for all of them in one poll, and runs the jobs of tasks that prefer its executor.
///
/// One thread, not one per server and client, so that a process that serves and calls (the gateway fanning a
/// request out to the services) needs no thread hand-off between a request arriving, the calls it makes, their
/// replies and its own reply: a handler on this thread sends its calls, and their replies resume it, in the
/// thread's next turn. Each turn drains every mailbox and takes up to ``messagesPerTurn`` messages from every
/// socket that has input, then runs the jobs that turn made ready, then sleeps only when nothing is left.
///
/// Nothing that blocks or computes for long may run here: it would hold up every call of the process.
final class IOThread: JobRunner, @unchecked Sendable {
    /// What other threads hand to the thread itself.
    enum Message: Sendable {
        /// Start serving a participant (a server or client loop) from the next turn.
        case adopt(any IOThreadParticipant)
    }

    /// The thread's name, as `top -H` and `perf` show it.
    static let name = "plantguide-rpc"

    /// The most messages a participant takes from one socket in one turn. Taking every waiting message made
    /// the two ends of a busy connection work in lockstep: the server took all 64 requests, then answered all
    /// 64, while the client sat idle, and the other way round. Smaller batches let both ends work at once:
    /// 64 calls in flight made 1.3 to 1.5 times as many calls a second with 16 as with 512 (Scripts/bench rpc).
    static let messagesPerTurn = 16

    /// The thread as a task executor.
    let executor = IOThreadExecutor()
    private let mailbox: LoopMailbox<Message>

    // The thread only:
    private var participants: [any IOThreadParticipant] = []
    private var jobs: [UnownedJob] = []
    private var adopted: [Message] = []
    private var items: [zmq_pollitem_t] = []
    /// For each participant, the index of its wake-up descriptor in `items` during a poll.
    private var wakeItems: [Int] = []

    private init() throws {
        mailbox = try LoopMailbox()
        executor.attach(self)
    }

    private static let instance = Mutex<IOThread?>(nil)

    /// The process's I/O thread, started on first use.
    /// - Throws: when the thread's wake-up descriptor cannot be created (the process is out of descriptors).
    static func shared() throws -> IOThread {
        try instance.withLock { instance in
            if let instance { return instance }
            let created = try IOThread()
            let thread = Thread(named: IOThread.name) {
                created.run()
            }
            thread.start()
            instance = created
            return created
        }
    }

    /// The shared thread's executor when it is running; nil before any server or client started it.
    static var runningExecutor: IOThreadExecutor? {
        instance.withLock { $0?.executor }
    }

    /// Serves `participant` from the thread's next turn until its turn reports it done, then calls its
    /// `finish()` on the thread. Hands its sockets over to the thread (the mailbox's lock is the memory barrier
    /// libzmq asks for when a socket changes threads).
    func adopt(_ participant: any IOThreadParticipant) {
        _ = mailbox.post(.adopt(participant))
    }

    func enqueueJob(_ job: UnownedJob) -> Bool {
        mailbox.post(job: job)
    }

    private func run() {
        while true {
            mailbox.takeMessages(into: &adopted)
            for case .adopt(let participant) in adopted { participants.append(participant) }
            mailbox.takeJobs(into: &jobs)
            #if DEBUG
            for job in jobs { IOThreadWatchdog.measure { executor.run(job) } }
            #else
            executor.run(jobs)
            #endif
            var index = 0
            while index < participants.count {
                if participants[index].turn() {
                    index += 1
                } else {
                    participants.remove(at: index).finish()
                }
            }
            waitForWork()
        }
    }

    /// Polls every participant's mailbox and sockets until one has input or the earliest deadline, unless
    /// something is waiting already (then it returns at once, for the next turn).
    private func waitForWork() {
        guard mailbox.prepareToSleep() else { return mailbox.awake(signalled: false) }
        var prepared = 0
        while prepared < participants.count, participants[prepared].mailboxMayBlock() { prepared += 1 }
        guard prepared == participants.count else {
            mailbox.awake(signalled: false)
            for participant in participants[..<prepared] { participant.mailboxAwake(signalled: false) }
            return
        }
        let now = MonotonicTime.now()
        var wakeUp = now.advanced(by: .seconds(1))
        items.removeAll(keepingCapacity: true)
        wakeItems.removeAll(keepingCapacity: true)
        items.append(zmq_pollitem_t(socket: nil, fd: mailbox.wake.descriptor, events: Int16(ZMQ_POLLIN), revents: 0))
        for participant in participants {
            wakeItems.append(items.count)
            items.append(zmq_pollitem_t(socket: nil, fd: participant.wakeDescriptor, events: Int16(ZMQ_POLLIN), revents: 0))
            participant.appendSockets(to: &items)
            if let next = participant.nextWakeUp, next < wakeUp { wakeUp = next }
        }
        _ = zmq_poll(&items, Int32(items.count), Int(now.milliseconds(until: wakeUp)))
        mailbox.awake(signalled: items[0].revents != 0)
        for (participant, item) in zip(participants, wakeItems) {
            participant.mailboxAwake(signalled: items[item].revents != 0)
        }
    }
}

/// A server's or client's work on the ``IOThread``: its sockets and its mailbox. Every requirement is called on
/// that thread only.
protocol IOThreadParticipant: AnyObject, Sendable {
    /// One turn: takes what waits in the mailbox and on the sockets, and expires deadlines. Returns false once the
    /// participant is done; the thread then calls `finish()` and forgets it.
    func turn() -> Bool
    /// Closes the sockets and fails what is left, after the last turn.
    func finish()
    /// The earliest time the participant needs a turn even without input (a deadline); nil for none.
    var nextWakeUp: MonotonicTime? { get }
    /// Appends the sockets whose input should end the thread's sleep.
    func appendSockets(to items: inout [zmq_pollitem_t])
    /// The descriptor its mailbox signals when something is posted while the thread sleeps.
    var wakeDescriptor: Int32 { get }
    /// Marks its mailbox as sleeping; false (and not marked) when something waits in it.
    func mailboxMayBlock() -> Bool
    /// After the poll: unmarks its mailbox and clears a wake-up it signalled.
    func mailboxAwake(signalled: Bool)
}
