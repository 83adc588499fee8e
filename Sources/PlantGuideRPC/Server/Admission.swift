/// A server's admission control: at most `maxRunning` calls run at once; beyond that calls wait in a FIFO queue
/// bounded by count and payload bytes; beyond that they are refused (RESOURCE_EXHAUSTED, retry later). A value
/// with no clock and no sockets, so every rule is tested alone; the server loop owns one and asks it.
struct Admission<Key: Hashable> {
    enum Decision: Equatable {
        /// Start it now.
        case start
        /// It waits its turn.
        case queue
        /// The queue is full (by count or by bytes).
        case refuse
    }

    let maxRunning: Int
    let maxQueued: Int
    let maxQueuedBytes: Int

    /// Calls started and not yet finished.
    private(set) var running = 0
    /// Payload bytes of the calls waiting.
    private(set) var queuedBytes = 0
    private var queue: [(key: Key, bytes: Int)] = []
    private var head = 0
    /// Keys that left the queue early (deadline passed): skipped when their turn comes.
    private var withdrawn: Set<Key> = []

    init(maxRunning: Int, maxQueued: Int, maxQueuedBytes: Int) {
        self.maxRunning = maxRunning
        self.maxQueued = maxQueued
        self.maxQueuedBytes = maxQueuedBytes
    }

    /// Calls waiting their turn.
    var queuedCount: Int { queue.count - head - withdrawn.count }

    /// Admits a call of `bytes` payload: it starts (counted as running), waits (counted as queued) or is refused.
    mutating func admit(_ key: Key, bytes: Int) -> Decision {
        if running < maxRunning && queuedCount == 0 {
            running += 1
            return .start
        }
        guard queuedCount < maxQueued, queuedBytes + bytes <= maxQueuedBytes else { return .refuse }
        queue.append((key, bytes))
        queuedBytes += bytes
        return .queue
    }

    /// A running call finished (or was cancelled): its slot is free.
    mutating func finished() {
        running = max(0, running - 1)
    }

    /// A queued call left before its turn (its deadline passed): it no longer counts.
    mutating func withdraw(_ key: Key, bytes: Int) {
        withdrawn.insert(key)
        queuedBytes -= bytes
    }

    /// The next queued call to start now that a slot is free, counted as running; nil when none may start.
    mutating func next() -> Key? {
        while running < maxRunning && head < queue.count {
            let (key, bytes) = queue[head]
            head += 1
            if withdrawn.remove(key) != nil { continue }
            queuedBytes -= bytes
            running += 1
            compactIfMostlyConsumed()
            return key
        }
        compactIfMostlyConsumed()
        return nil
    }

    private mutating func compactIfMostlyConsumed() {
        guard head > 1_024 && head * 2 > queue.count else { return }
        queue.removeFirst(head)
        head = 0
    }
}
