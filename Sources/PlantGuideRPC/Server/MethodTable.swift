import PlantGuideRPCCore

/// A server's methods by path, found from the path's bytes in a received frame without making a `String` of
/// them: each call used to allocate its method name and hash it three times (route, probe, metrics).
///
/// Built once when the server loop starts; read by the I/O thread only, which also keeps each method's metrics
/// handle in its entry.
final class MethodTable {
    /// One registered path: its handler or probe, and its metrics once it has been called.
    final class Entry {
        let path: String
        let route: RPCRouter.Route?
        let probe: RPCRouter.Probe?
        /// Made on the method's first answer (I/O thread only).
        var metrics: ServerMetrics.Method?
        fileprivate let utf8: [UInt8]

        init(path: String, route: RPCRouter.Route?, probe: RPCRouter.Probe?) {
            self.path = path
            self.route = route
            self.probe = probe
            utf8 = Array(path.utf8)
        }
    }

    /// Open addressing with linear probing, at most half full; `slots` count is a power of two.
    private var slots: [Entry?]
    private let mask: Int

    init(router: RPCRouter) {
        var entries = router.routes.map { Entry(path: $0.key, route: $0.value, probe: nil) }
        entries += router.probes.map { Entry(path: $0.key, route: nil, probe: $0.value) }
        var capacity = 8
        while capacity < entries.count * 2 { capacity *= 2 }
        slots = Array(repeating: nil, count: capacity)
        mask = capacity - 1
        for entry in entries {
            var slot = entry.utf8.withUnsafeBytes(Self.hash) & mask
            while slots[slot] != nil { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }

    /// The method whose path is exactly `bytes`, or nil for an unknown one.
    func entry(forPath bytes: UnsafeRawBufferPointer) -> Entry? {
        var slot = Self.hash(bytes) & mask
        while let entry = slots[slot] {
            if entry.utf8.count == bytes.count, entry.utf8.withUnsafeBytes({ $0.elementsEqual(bytes) }) { return entry }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// The method named `path`, or nil for an unknown one.
    func entry(named path: String) -> Entry? {
        var path = path
        return path.withUTF8 { entry(forPath: UnsafeRawBufferPointer($0)) }
    }

    /// FNV-1a: the paths are few and chosen by the services, so a fast hash is enough. A caller choosing paths
    /// that collide only slows its own unknown-method answers.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}
