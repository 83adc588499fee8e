import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP request to an external service (Trefle, Pl@ntNet, a webhook).
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
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

/// What every external HTTP call of PlantGuide goes through (DESIGN: one protocol): URLSession, which is libcurl
/// on Linux, in production; anything in tests.
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

/// A transport failure: no HTTP response at all.
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable { case timedOut, transport }
    public var code: Code
    public var message: String

    public var description: String { message }
}

/// `HTTPClient` over Foundation's URLSession (libcurl on Linux). One session, no cookies, no cache.
public final class URLSessionHTTPClient: HTTPClient {
    private let session: URLSession

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        session = URLSession(configuration: configuration)
    }

    /// The time-out is enforced here: swift-corelibs-foundation truncates `timeoutInterval` to whole seconds
    /// (0.5 s fires at once, 1.7 s after 1 s), so URLSession's own interval, rounded up, is only a backstop.
    public func send(_ outgoing: HTTPRequest, timeout: Duration) async throws -> HTTPResponse {
        let url = outgoing.url
        var request = URLRequest(url: url)
        request.httpMethod = outgoing.method
        request.httpBody = outgoing.body
        request.timeoutInterval = (Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18).rounded(.up) + 1
        for (name, value) in outgoing.headers { request.setValue(value, forHTTPHeaderField: name) }
        let call = PreparedRequest(request: request, session: session)
        return try await withCheckedThrowingContinuation { continuation in
            let outcome = FirstOutcome(continuation)
            let work = Task {
                outcome.resume(with: await Result(catching: { try await Self.perform(call.request, on: call.session) }))
            }
            let timer = Task {
                try await Task.sleep(for: timeout)
                outcome.resume(with: .failure(HTTPClientError(
                    code: .timedOut, message: "no answer from \(url.host ?? "server") within \(timeout)")))
                work.cancel()
            }
            outcome.onResume = { timer.cancel() }
        }
    }

    private static func perform(_ request: URLRequest, on session: URLSession) async throws -> HTTPResponse {
        let host = request.url?.host ?? "server"
        do {
            let (body, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw HTTPClientError(code: .transport, message: "\(host) sent no HTTP response")
            }
            var fields: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
            }
            return HTTPResponse(status: http.statusCode, headers: fields, body: body)
        } catch let error as URLError where error.code == .timedOut {
            throw HTTPClientError(code: .timedOut, message: "no answer from \(host)")
        } catch let error as HTTPClientError {
            throw error
        } catch {
            throw HTTPClientError(code: .transport, message: "cannot reach \(host): \(error.localizedDescription)")
        }
    }
}

/// A request and its session, handed to the task that performs it (URLRequest is not Sendable on Linux).
private struct PreparedRequest: @unchecked Sendable {
    let request: URLRequest
    let session: URLSession
}

/// Resumes a continuation with whichever outcome comes first (the response or the time-out).
private final class FirstOutcome: @unchecked Sendable {
    private let state: Mutex<CheckedContinuation<HTTPResponse, any Error>?>
    /// Called once, after the continuation is resumed.
    var onResume: (@Sendable () -> Void)? {
        get { hook.withLock { $0 } }
        set { hook.withLock { $0 = newValue } }
    }
    private let hook = Mutex<(@Sendable () -> Void)?>(nil)

    init(_ continuation: CheckedContinuation<HTTPResponse, any Error>) {
        state = Mutex(continuation)
    }

    func resume(with result: Result<HTTPResponse, any Error>) {
        guard let continuation = state.withLock({ state in defer { state = nil }; return state }) else { return }
        continuation.resume(with: result)
        onResume?()
    }
}

extension Result where Failure == any Error {
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
