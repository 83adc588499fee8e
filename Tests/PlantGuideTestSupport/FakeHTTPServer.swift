import Foundation
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for fakes of external APIs: each request goes to
/// `respond`, which replays a recorded body, returns an error status, or hangs. It records every request.
/// One thread per connection; every answer closes its connection.
public final class FakeHTTPServer: Sendable {
    /// A request as received.
    public struct Request: Sendable {
        public var method: String
        /// The path without the query, percent-decoded.
        public var path: String
        public var query: [String: String]
        /// Header fields with lower-case names.
        public var headers: [String: String]
        /// The body (read by Content-Length).
        public var body: Data
    }

    /// What to answer.
    public enum Response: Sendable {
        case reply(status: Int, headers: [String: String] = [:], body: Data = Data())
        /// Never answer (until the server stops): a server that hangs past the client's time-out.
        case hang
        /// Answer after a pause (the connection's own thread waits).
        indirect case delayed(Duration, Response)

        /// 200 with a JSON body.
        public static func json(_ body: Data, status: Int = 200, headers: [String: String] = [:]) -> Response {
            .reply(status: status, headers: headers.merging(["Content-Type": "application/json"]) { $1 }, body: body)
        }
    }

    /// Where the server listens, e.g. http://127.0.0.1:40123.
    public let baseURL: URL
    private let listener: Int32
    private let respond: @Sendable (Request) -> Response
    private let state = Mutex<(requests: [Request], hanging: [Int32], stopped: Bool)>(([], [], false))
    private let arrivals = DispatchSemaphore(value: 0)

    public init(respond: @escaping @Sendable (Request) -> Response) throws {
        self.respond = respond
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(listener, raw, length) == 0 && listen(listener, 128) == 0 && getsockname(listener, raw, &length) == 0
            }
        }
        guard listening else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        self.listener = listener
        baseURL = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
        let server = self
        Thread { server.acceptLoop() }.start()
    }

    deinit { stop() }

    /// Every request received so far.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Waits, on a thread of its own, until `condition` holds for the requests received, or `timeout` passes.
    /// - Returns: whether the condition came true.
    public func wait(timeout: Duration, until condition: @escaping @Sendable ([Request]) -> Bool) async -> Bool {
        let deadline = DispatchTime.now() + .milliseconds(Int(timeout.components.seconds * 1_000))
        return await withCheckedContinuation { continuation in
            Thread { [self] in
                while !condition(requests) {
                    if arrivals.wait(timeout: deadline) == .timedOut {
                        continuation.resume(returning: condition(requests))
                        return
                    }
                }
                continuation.resume(returning: true)
            }.start()
        }
    }

    /// How many requests had `path`.
    public func count(path: String) -> Int { requests.filter { $0.path == path }.count }

    /// Stops listening and drops hanging connections. Idempotent: the descriptors are closed exactly once (a
    /// second close would hit whatever socket or file has since been given the same number). The listener is only
    /// shut down here, which wakes the accept loop; that loop closes it when it is done with it: closed here, its
    /// number could go to another test's listener while the loop is about to accept on it again, and this stopped
    /// server would answer that test's requests with 503.
    public func stop() {
        let hanging = state.withLock { state -> [Int32]? in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer { state.hanging.removeAll() }
            return state.hanging
        }
        guard let hanging else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        for descriptor in hanging {
            shutdown(descriptor, Int32(SHUT_RDWR))
            close(descriptor)
        }
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR && !state.withLock({ $0.stopped }) { continue }
                return
            }
            if state.withLock({ $0.stopped }) {
                close(connection)
                return
            }
            let server = self
            Thread { server.serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        guard let request = readRequest(connection) else {
            close(connection)
            return
        }
        let stopped = state.withLock { state in
            state.requests.append(request)
            return state.stopped
        }
        arrivals.signal()
        var response = stopped ? .reply(status: 503) : respond(request)
        while case .delayed(let pause, let later) = response {
            Thread.sleep(forTimeInterval: Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18)
            response = later
        }
        switch response {
        case .delayed:
            close(connection)
        case .hang:
            state.withLock { $0.hanging.append(connection) }
        case .reply(let status, let headers, let body):
            var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            var bytes = Array((head + "\r\n").utf8)
            bytes += body
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                if written <= 0 { break }
                offset += written
            }
            close(connection)
        }
    }

    private func readRequest(_ connection: Int32) -> Request? {
        var buffer = [UInt8]()
        var rest = ArraySlice<UInt8>()
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while buffer.count < 65_536 {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                rest = buffer[end.upperBound...]
                buffer = Array(buffer[..<end.upperBound])
                break
            }
        }
        let lines = String(decoding: buffer, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2 else { return nil }
        let components = URLComponents(string: String(parts[1]))
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        var body = [UInt8](rest)
        let length = min(Int(headers["content-length"] ?? "0") ?? 0, 16 << 20)
        while body.count < length {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { break }
            body += chunk[..<count]
        }
        return Request(method: String(parts[0]), path: components?.path ?? String(parts[1]), query: query, headers: headers,
                       body: Data(body.prefix(length)))
    }

    private static func reason(_ status: Int) -> String {
        [200: "OK", 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error",
         503: "Service Unavailable"][status] ?? "Status"
    }
}
