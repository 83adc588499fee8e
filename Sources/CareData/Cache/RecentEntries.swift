import Synchronization

/// Decoded cache entries kept in memory in front of SQLite, so that a cache hit costs a dictionary lookup rather
/// than a database read and a JSON decode. Bounded: past `capacity` the least recently used tenth is dropped.
final class RecentEntries: Sendable {
    private struct State {
        var byKey: [String: (entry: CareCache.Entry, lastUse: UInt64)] = [:]
        var keyByTrefleID: [Int: String] = [:]
        var clock: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func entry(key: String) -> CareCache.Entry? {
        state.withLock { state in
            guard let found = state.byKey[key] else { return nil }
            state.clock += 1
            state.byKey[key]?.lastUse = state.clock
            return found.entry
        }
    }

    func entry(trefleID: Int) -> CareCache.Entry? {
        state.withLock { state in state.keyByTrefleID[trefleID].flatMap { state.byKey[$0]?.entry } }
    }

    func insert(_ entry: CareCache.Entry) {
        state.withLock { state in
            if let id = entry.trefleID, let previous = state.keyByTrefleID[id], previous != entry.key {
                state.byKey[previous] = nil
            }
            state.clock += 1
            state.byKey[entry.key] = (entry, state.clock)
            if let id = entry.trefleID { state.keyByTrefleID[id] = entry.key }
            if state.byKey.count > capacity { Self.evict(&state, keeping: capacity - capacity / 10) }
        }
    }

    func remove(key: String?, trefleID: Int?) {
        state.withLock { state in
            let keys = [key, trefleID.flatMap { state.keyByTrefleID[$0] }].compactMap { $0 }
            for key in keys {
                if let id = state.byKey.removeValue(forKey: key)?.entry.trefleID { state.keyByTrefleID[id] = nil }
            }
        }
    }

    private static func evict(_ state: inout State, keeping count: Int) {
        let keep = state.byKey.sorted { $0.value.lastUse > $1.value.lastUse }.prefix(count)
        state.byKey = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
        state.keyByTrefleID = state.keyByTrefleID.filter { state.byKey[$0.value] != nil }
    }
}
