/// A min-heap of (deadline, key) pairs: the I/O threads' timers. Entries whose call has finished are skipped when
/// they pop, so removal is never needed; `compact` drops them in bulk so that a busy server's heap holds about
/// as many entries as it has calls in flight, not every call of the last timeout period.
struct DeadlineHeap<Key> {
    private var items: [(deadline: MonotonicTime, key: Key)] = []

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }

    /// The earliest deadline, if any.
    var earliest: MonotonicTime? { items.first?.deadline }

    /// Drops entries whose key `isLive` rejects, when they outnumber the live ones (amortised O(1) per insert).
    mutating func compact(liveCount: Int, isLive: (Key) -> Bool) {
        guard items.count > 2 * liveCount + 1_024 else { return }
        items.removeAll { !isLive($0.key) }
        items.sort { $0.deadline < $1.deadline }  // a sorted array is a valid min-heap
    }

    mutating func insert(_ deadline: MonotonicTime, _ key: Key) {
        items.append((deadline, key))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].deadline < items[parent].deadline else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry if its deadline is at or before `now`.
    mutating func popExpired(now: MonotonicTime) -> Key? {
        guard let first = items.first, first.deadline <= now else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < items.count && items[left].deadline < items[smallest].deadline { smallest = left }
                if right < items.count && items[right].deadline < items[smallest].deadline { smallest = right }
                if smallest == parent { break }
                items.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first.key
    }
}
