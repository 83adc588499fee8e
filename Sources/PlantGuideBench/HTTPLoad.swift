import ArgumentParser
import Foundation
import Glibc
import PlantGuideCore
import Synchronization

/// `plantguide-bench http`: one HTTP/1.1 request in a closed loop over keep-alive connections, one per request in
/// flight, each on a thread of its own with blocking sockets, so that the load generator costs as little as it can
/// and none of it runs on Swift's global executor. For the gateway's HTTP front in `Scripts/bench gateway`.
struct HTTPLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http", abstract: "Send one HTTP request in a closed loop and print a JSON result.",
        discussion: "\"{n}\" in the path or body becomes a number unique to each request (new plant ids for saves, say).")

    @Option(help: "Port on 127.0.0.1.") var port: Int
    @Option(help: "Request method.") var method = "GET"
    @Option(help: "Path and query.") var path: String
    @Option(help: "JSON body.") var body: String?
    @Option(name: [.customShort("H"), .long], help: "Header 'Name: value', repeatable.") var header: [String] = []
    @Option(help: "Requests in flight (connections).") var inflight = 1
    @Option(help: "Seconds to measure.") var duration = 3.0
    @Option(help: "Seconds to warm up first.") var warmup = 1.0
    @Option(help: "Name to report the results under.") var label: String

    func run() async throws {
        let template = (method: method, path: path, body: body, headers: header)
        let port = self.port
        let connect: @Sendable () throws -> HTTPConnection = { try HTTPConnection(port: port) }
        // Warm-up, then the measured run, on fresh connections each.
        _ = try await load(seconds: warmup, template: template, connect: connect)
        let started = ContinuousClock.now
        let samples = try await load(seconds: duration, template: template, connect: connect)
        let request = template.body.map { $0.utf8.count } ?? 0
        print(BenchResult(implementation: label, payload: request, inflight: inflight, samples: samples, elapsed: .now - started).json)
    }

    private func load(seconds: Double,
                      template: (method: String, path: String, body: String?, headers: [String]),
                      connect: @escaping @Sendable () throws -> HTTPConnection) async throws -> [Int64] {
        let end = ContinuousClock.now + .milliseconds(Int64(seconds * 1_000))
        let numbers = UniqueNumbers()
        return try await withThrowingTaskGroup(of: [Int64].self) { group in
            for _ in 0..<inflight {
                group.addTask {
                    try await OwnThread.run {
                        let connection = try connect()
                        defer { connection.close() }
                        var latencies: [Int64] = []
                        while ContinuousClock.now < end {
                            let n = String(numbers.next())
                            let request = HTTPConnection.request(
                                method: template.method, path: template.path.replacingOccurrences(of: "{n}", with: n),
                                body: template.body?.replacingOccurrences(of: "{n}", with: n), headers: template.headers)
                            let start = ContinuousClock.now
                            let status = try connection.exchange(request).status
                            latencies.append((ContinuousClock.now - start).nanoseconds)
                            guard (200..<300).contains(status) else { throw ValidationError("HTTP \(status) for \(template.path)") }
                        }
                        return latencies
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }
}

/// Numbers unique across a run's callers, for "{n}" in a request.
final class UniqueNumbers: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
}

/// One keep-alive HTTP/1.1 connection with blocking sockets; responses must carry Content-Length.
final class HTTPConnection: @unchecked Sendable {
    private let descriptor: Int32
    private var pending = [UInt8]()

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var noDelay: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, connected == 0 else { throw ValidationError("cannot connect to 127.0.0.1:\(port)") }
    }

    static func request(method: String, path: String, body: String?, headers: [String]) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { "\($0)\r\n" }.joined()
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        return Array((head + "\r\n" + (body ?? "")).utf8)
    }

    /// Sends the request and reads the whole response; returns its status and body.
    func exchange(_ request: [UInt8]) throws -> (status: Int, body: [UInt8]) {
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw ValidationError("the connection closed while sending") }
            sent += count
        }
        var headerEnd: Int?
        while true {
            if headerEnd == nil, let end = Self.find([13, 10, 13, 10], in: pending) { headerEnd = end + 4 }
            if let end = headerEnd {
                let head = String(decoding: pending[..<end], as: UTF8.self)
                let lines = head.split(separator: "\r\n")
                let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
                guard let lengthLine = lines.first(where: { $0.lowercased().hasPrefix("content-length:") }),
                      let length = Int(lengthLine.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) else {
                    throw ValidationError("a response without Content-Length: \(head)")
                }
                if pending.count >= end + length {
                    let body = Array(pending[end..<end + length])
                    pending.removeFirst(end + length)
                    return (status, body)
                }
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { throw ValidationError("the connection closed while receiving") }
            pending += chunk[0..<count]
        }
    }

    func close() { Glibc.close(descriptor) }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index..<index + needle.count].elementsEqual(needle) { return index }
        return nil
    }
}
