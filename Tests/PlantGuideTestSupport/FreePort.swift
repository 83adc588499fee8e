import Foundation
import Synchronization

/// Free TCP ports on 127.0.0.1, for a server that must come back on the same port after a restart, or that a
/// test binds after its clients connect.
///
/// The ports come from below the kernel's ephemeral range (`ip_local_port_range`), which the kernel never hands
/// out by itself. A port of that range, free when picked, could be taken before the test binds it by any
/// outgoing connection of the tests running alongside (each takes a local port from there), and was: a
/// subscriber test once found its publisher's port in use.
public enum FreePort {
    /// A port that no socket of this machine holds now and that only an explicit bind can take.
    public static func next() throws -> Int {
        guard let candidates = Self.candidates else { return try kernelChosen() }
        for _ in 0..<candidates.count {
            let port = candidates.lowerBound + Self.cursor.add(1, ordering: .relaxed).oldValue % candidates.count
            if bind(port) != nil { return port }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Ports below the ephemeral range, from 10000 (clear of well-known services); nil when the range starts too
    /// low to leave room.
    private static let candidates: Range<Int>? = {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let lowest = range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        return lowest > 11_000 ? 10_000..<lowest : nil
    }()

    /// A port the kernel picks from its ephemeral range: the fallback.
    private static func kernelChosen() throws -> Int {
        guard let port = bind(0) else { throw POSIXError(.EADDRINUSE) }
        return port
    }

    /// Where the next search starts: a random place, so that concurrent test processes rarely meet.
    private static let cursor = Atomic<Int>(Int.random(in: 0..<100_000))

    /// Binds a socket to `port` on 127.0.0.1 and closes it; the port it got, nil when the bind failed.
    private static func bind(_ port: Int) -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                Glibc.bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
