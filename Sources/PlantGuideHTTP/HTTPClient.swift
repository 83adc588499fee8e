import CHTTPTransport
import Foundation
import PlantGuideThreads
import Tracing

/// An HTTP request to an external service (Trefle, Pl@ntNet, a webhook).
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?
    /// Which addresses it may connect to: URLs a user gave (webhooks, push services) must not reach the server's
    /// own network.
    public var addresses: OutboundAddresses
    /// The largest response body this request accepts, below the client's own limit (a provider's answers are
    /// small: a larger one is refused before it is parsed or cached); nil: the client's limit.
    public var maxResponseBytes: Int?

    public init(method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil,
                addresses: OutboundAddresses = .any, maxResponseBytes: Int? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.addresses = addresses
        self.maxResponseBytes = maxResponseBytes
    }
}

/// The outbound guard: which addresses a request may connect to, checked on each address before its socket opens
/// (after name resolution, so a name that resolves to a private address is refused as well, and no packet is sent).
public enum OutboundAddresses: Sendable {
    /// Any (the services an operator configured: Trefle, Pl@ntNet, the collector).
    case any
    /// Public addresses only: not loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (cloud
    /// metadata at 169.254.169.254), carrier-grade NAT, multicast, documentation or reserved ranges.
    case publicOnly
    /// Public ones and loopback: for tests, whose fake receivers listen on 127.0.0.1.
    case publicOrLoopback

    var policy: pg_http_address_policy {
        switch self {
        case .any: PG_HTTP_ANY_ADDRESS
        case .publicOnly: PG_HTTP_PUBLIC_ONLY
        case .publicOrLoopback: PG_HTTP_PUBLIC_OR_LOOPBACK
        }
    }

    /// The guard for URLs users give (webhooks, push services): public addresses, and loopback too when
    /// `allowLoopback` (tests, whose receivers listen on 127.0.0.1).
    public static func receivers(allowLoopback: Bool) -> OutboundAddresses { allowLoopback ? .publicOrLoopback : .publicOnly }

    /// Whether the numeric address `address` is one this allows.
    public func allows(_ address: String) -> Bool { pg_http_address_allowed(address, policy) != 0 }
}

/// An HTTP response.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header fields with lower-case names.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// What every external HTTP call of PlantGuide goes through (DESIGN: one protocol): ``CurlHTTPClient`` in
/// production; anything in tests.
public protocol HTTPClient: Sendable {
    /// Sends `request`; throws `HTTPClientError` when no response arrives within `timeout` or the transport fails.
    /// Any status, 4xx and 5xx included, is a response.
    func send(_ request: HTTPRequest, timeout: Duration) async throws -> HTTPResponse
}

extension HTTPClient {
    /// GETs `url`.
    public func get(_ url: URL, headers: [String: String], timeout: Duration) async throws -> HTTPResponse {
        try await send(HTTPRequest(url: url, headers: headers), timeout: timeout)
    }
}

/// How far a transfer got, in bytes; a total is 0 while it is unknown.
public struct HTTPProgress: Sendable {
    public var downloadTotal: Int64
    public var downloaded: Int64
    public var uploadTotal: Int64
    public var uploaded: Int64
}

/// A transport failure: no HTTP response at all.
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable {
        case timedOut
        case transport
        /// The body was over the limit; the transfer was stopped.
        case tooLarge
        /// The outbound guard refused every address of the host (``OutboundAddresses``): nothing was sent, and
        /// asking again would be refused again while the name resolves to the same place.
        case refusedAddress
    }
    public var code: Code
    public var message: String

    public var description: String { message }
}

/// `HTTPClient` over libcurl's easy interface, each request on an OS thread of its own (a blocking transfer,
/// never on Swift's cooperative pool). Not URLSession: on Linux it drives libcurl through libdispatch sources,
/// which lose the events of a socket whose descriptor number was reused at once
/// (swift-corelibs-libdispatch#833), so a retry on a new connection could hang until its time-out; and its
/// callbacks need libdispatch's global queues, which are Swift's narrow cooperative pool on Linux.
public final class CurlHTTPClient: HTTPClient {
    /// The largest response body accepted; a larger one fails the request. Default 64 MiB.
    public let maxBodyBytes: Int
    /// The certificate authorities https servers are checked against.
    public let authorities: CertificateAuthorities

    public init(maxBodyBytes: Int = 64 << 20, authorities: CertificateAuthorities = .system) {
        self.maxBodyBytes = maxBodyBytes
        self.authorities = authorities
    }

    /// The time-out covers the whole exchange, connecting included, to the millisecond (at least 1 ms).
    public func send(_ request: HTTPRequest, timeout: Duration) async throws -> HTTPResponse {
        try await send(request, timeout: timeout, progress: nil)
    }

    /// `send`, telling `progress` how far the transfer got, often (for a progress bar), on the transfer's thread.
    ///
    /// Inside a traced call (a tracer bootstrapped and a current span), the request is a client span "GET trefle.io"
    /// with OpenTelemetry's HTTP attributes, but never its path or query (where API keys travel); the trace context
    /// is not sent to the external service.
    public func send(_ request: HTTPRequest, timeout: Duration, progress: (@Sendable (HTTPProgress) -> Void)?) async throws -> HTTPResponse {
        let tracer = InstrumentationSystem.tracer
        guard !(tracer is NoOpTracer), let parent = ServiceContext.current else {
            return try await untracedSend(request, timeout: timeout, progress: progress)
        }
        let host = request.url.host ?? "server"
        let span = tracer.startSpan("\(request.method) \(host)", context: parent, ofKind: .client)
        defer { span.end() }
        span.attributes["http.request.method"] = request.method
        span.attributes["server.address"] = host
        span.attributes["url.scheme"] = request.url.scheme ?? "http"
        do {
            let response = try await untracedSend(request, timeout: timeout, progress: progress)
            span.attributes["http.response.status_code"] = response.status
            if response.status >= 400 { span.setStatus(SpanStatus(code: .error)) }
            return response
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    private func untracedSend(_ request: HTTPRequest, timeout: Duration, progress: (@Sendable (HTTPProgress) -> Void)?) async throws
        -> HTTPResponse
    {
        let milliseconds = max(1, Int(timeout.components.seconds) * 1_000 + Int(timeout.components.attoseconds / 1_000_000_000_000_000))
        let maxBodyBytes = min(maxBodyBytes, request.maxResponseBytes ?? .max)
        let bundle = authorities.bundle
        return try await withCheckedThrowingContinuation { continuation in
            Thread(named: "plantguide-http") {
                continuation.resume(with: Self.perform(request, timeoutMilliseconds: milliseconds, maxBodyBytes: maxBodyBytes,
                                                       authorities: bundle, progress: progress))
            }.start()
        }
    }

    private final class ProgressBox {
        let report: @Sendable (HTTPProgress) -> Void
        init(_ report: @escaping @Sendable (HTTPProgress) -> Void) { self.report = report }
    }

    private static func perform(_ request: HTTPRequest, timeoutMilliseconds: Int, maxBodyBytes: Int, authorities: Data?,
                                progress: (@Sendable (HTTPProgress) -> Void)?) -> Result<HTTPResponse, any Error> {
        let host = request.url.host ?? "server"
        let headerLines = request.headers.map { "\($0.key): \($0.value)" }
        var result = pg_http_result()
        defer { pg_http_result_free(&result) }
        let box = progress.map(ProgressBox.init)
        let context = box.map { Unmanaged.passUnretained($0).toOpaque() }
        let report: pg_http_progress? = box == nil ? nil : { context, downloadTotal, downloaded, uploadTotal, uploaded in
            guard let context else { return }
            Unmanaged<ProgressBox>.fromOpaque(context).takeUnretainedValue().report(HTTPProgress(
                downloadTotal: Int64(downloadTotal), downloaded: Int64(downloaded), uploadTotal: Int64(uploadTotal), uploaded: Int64(uploaded)))
        }
        let code = withCStrings(headerLines) { headers in
            (request.body ?? Data()).withUnsafeBytes { body in
                (authorities ?? Data()).withUnsafeBytes { bundle in
                    pg_http_perform(request.method, request.url.absoluteString, headers, headerLines.count,
                                    request.body == nil ? nil : body.baseAddress, body.count, timeoutMilliseconds, maxBodyBytes,
                                    request.addresses.policy, authorities == nil ? nil : bundle.baseAddress, bundle.count,
                                    report, context, &result)
                }
            }
        }
        withExtendedLifetime(box) {}
        if result.timed_out != 0 {
            return .failure(HTTPClientError(code: .timedOut, message: "no answer from \(host) within \(timeoutMilliseconds) ms"))
        }
        if result.too_large != 0 {
            return .failure(HTTPClientError(code: .tooLarge, message: "\(host) sent a body over \(maxBodyBytes) bytes"))
        }
        if result.refused_address != 0 {
            return .failure(HTTPClientError(code: .refusedAddress, message: "cannot send to \(host): its address is not a public one "
                                            + "(loopback, private, link-local and reserved addresses are refused)"))
        }
        guard code == 0, result.status > 0 else {
            let reason = withUnsafeBytes(of: result.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return .failure(HTTPClientError(code: .transport, message: "cannot reach \(host): \(reason)"))
        }
        let body = result.body.map { Data(bytes: $0, count: result.body_length) } ?? Data()
        let head = result.headers.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: result.headers_length), as: UTF8.self) } ?? ""
        return .success(HTTPResponse(status: result.status, headers: parseHeaders(head), body: body))
    }

    /// Header fields with lower-case names, from the final response's header lines (the status line skipped).
    static func parseHeaders(_ head: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }
}

/// Calls `body` with `strings` as an array of C strings that live for the call.
private func withCStrings<Result>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> Result) -> Result {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}
