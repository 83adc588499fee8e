import Foundation
import Glibc
import PlantGuideCore

/// A Server-Sent Events client for tests: a plain TCP connection to a loopback port, one HTTP/1.1 GET, and the
/// response's raw text as it arrives (headers, chunk sizes and all), read on a thread of its own.
public final class EventStreamReader: @unchecked Sendable {
    private let descriptor: Int32
    private var received = [UInt8]()

    /// Connects to 127.0.0.1:`port` and sends `GET path` with `headers`.
    public init(port: Int, path: String, headers: [String: String] = [:]) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        let lines = ["GET \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Accept: text/event-stream"]
            + headers.map { "\($0.key): \($0.value)" }
        let request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    deinit { Glibc.close(descriptor) }

    /// Everything received so far once it satisfies `condition`, or when `timeout` passes first (the caller checks).
    public func text(until condition: @escaping @Sendable (String) -> Bool, timeout: Duration) async -> String {
        await OwnThread.run { [self] in
            let end = ContinuousClock.now + timeout
            var chunk = [UInt8](repeating: 0, count: 4_096)
            while true {
                let text = String(decoding: received, as: UTF8.self)
                let left = ContinuousClock.now.duration(to: end)
                if condition(text) || left <= .zero { return text }
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000)
                guard poll(&poller, 1, max(1, milliseconds)) > 0 else { continue }
                let count = recv(descriptor, &chunk, chunk.count, 0)
                guard count > 0 else { return text }  // closed by the server
                received += chunk[0..<count]
            }
        }
    }
}
