/// A min-heap of (deadline, key) pairs: the I/O threads' timer wheel. Entries whose key is gone by the time they
/// pop are simply skipped by the caller, so removal is never needed.
struct DeadlineHeap<Key> {
    private var items: [(deadline: MonotonicTime, key: Key)] = []

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }

    /// The earliest deadline, if any.
    var earliest: MonotonicTime? { items.first?.deadline }

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
