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
    ///
    /// A completion-handler task, not `data(for:)`: cancelling a Swift task that awaits `data(for:)` runs
    /// URLSession's cancellation under the task's status lock, and corelibs' session queue, finishing the same
    /// request at that moment, waits for that lock while the cancellation waits for the queue (a deadlock seen
    /// under load). Here the time-out cancels the URLSessionTask directly, holding no lock.
    public func send(_ outgoing: HTTPRequest, timeout: Duration) async throws -> HTTPResponse {
        let url = outgoing.url
        var request = URLRequest(url: url)
        request.httpMethod = outgoing.method
        request.httpBody = outgoing.body
        request.timeoutInterval = (Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18).rounded(.up) + 1
        for (name, value) in outgoing.headers { request.setValue(value, forHTTPHeaderField: name) }
        let host = url.host ?? "server"
        return try await withCheckedThrowingContinuation { continuation in
            let outcome = FirstOutcome(continuation)
            let task = DataTask(session.dataTask(with: request) { body, response, error in
                outcome.resume(with: Self.result(host: host, body: body, response: response, error: error))
            })
            let timer = Task {
                try await Task.sleep(for: timeout)
                outcome.resume(with: .failure(HTTPClientError(code: .timedOut, message: "no answer from \(host) within \(timeout)")))
                task.task.cancel()
            }
            outcome.onResume = { timer.cancel() }
            task.task.resume()
        }
    }

    private static func result(host: String, body: Data?, response: URLResponse?, error: (any Error)?) -> Result<HTTPResponse, any Error> {
        if let error = error as? URLError, error.code == .timedOut {
            return .failure(HTTPClientError(code: .timedOut, message: "no answer from \(host)"))
        }
        if let error {
            return .failure(HTTPClientError(code: .transport, message: "cannot reach \(host): \(error.localizedDescription)"))
        }
        guard let http = response as? HTTPURLResponse else {
            return .failure(HTTPClientError(code: .transport, message: "\(host) sent no HTTP response"))
        }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return .success(HTTPResponse(status: http.statusCode, headers: fields, body: body ?? Data()))
    }
}

/// A URLSession task handed to the time-out task (URLSessionDataTask is not Sendable on Linux; cancel and
/// resume are thread-safe).
private struct DataTask: @unchecked Sendable {
    let task: URLSessionDataTask
    init(_ task: URLSessionDataTask) { self.task = task }
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
